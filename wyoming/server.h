// Server: earshot-wyoming's sockets. The main thread only accepts connections, answers
// SIGTERM/SIGINT and the systemd watchdog (sd_notify: READY=1 once listening, WATCHDOG=1,
// STOPPING=1); each connection is served by a thread of its own, reading events (EventReader),
// handing them to its Session and writing the answers with a send timeout, so a slow, stalled or
// vanished client holds up only its own thread. Every end of a connection is logged on stderr
// (the journal) with its cause; nothing a client sends ends the service.
#pragma once

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "wyoming/event_reader.h"
#include "wyoming/service.h"
#include "wyoming/uri.h"

namespace earshot::wyoming {

struct ServerOptions {
  int max_connections = 32;     // more are closed at once, with a log line
  int send_timeout_ms = 10000;  // a client that takes no answer for this long is dropped
  ReaderLimits limits;
};

class Server {
 public:
  // Listens on `uri`; `service` must outlive the server.
  static Result<std::unique_ptr<Server>> Create(const ListenUri& uri, const Service* service,
                                                const ServerOptions& options);
  ~Server();
  // Serves until SIGTERM or SIGINT (blocked in the calling thread before any thread starts);
  // returns the exit status.
  int Run();

 private:
  struct Connection {
    int fd = -1;
    std::string peer;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  Server(int listen_fd, std::string bound, const Service* service, const ServerOptions& options)
      : listen_fd_(listen_fd), bound_(std::move(bound)), service_(service), options_(options) {}
  void Accept();
  void Serve(Connection* connection);
  void Reap(bool all);

  int listen_fd_;
  std::string bound_;
  const Service* service_;
  ServerOptions options_;
  std::mutex mutex_;  // connections_' fds
  std::list<Connection> connections_;
  int64_t accepted_ = 0;
};

// One line on stderr: "earshot-wyoming: MESSAGE" (thread-safe).
void Log(const std::string& message);

}  // namespace earshot::wyoming
