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
#include <vector>

#include "base/result.h"
#include "wyoming/event_reader.h"
#include "wyoming/service.h"
#include "wyoming/uri.h"

namespace earshot::wyoming {

// When the server is full (max_connections, or max_per_address from one address), a new client
// takes the place of the oldest connection that has never sent a whole event (whatever its age:
// a real client sends `describe` at once), else of the one that has sent no event for longest, if
// that is at least evict_idle_ms; otherwise it is refused. Either is logged. A client whose event
// (header line, data, payload) is not whole header_timeout_ms after it began, or that sends no
// event for idle_timeout_ms, gets an `error` event (code `timeout`) and is closed: idle or slow
// sockets cannot hold the slots (issue 78: 32 of them locked every client out).
struct ServerOptions {
  int max_connections = 32;     // at once
  int max_per_address = 16;     // at once from one IP address (unix sockets: no limit of their own)
  int send_timeout_ms = 10000;  // a client that takes no answer for this long is dropped
  int header_timeout_ms = 10000;  // an event begun must be whole within it
  int idle_timeout_ms = 300000;   // the longest a connection may send no event
  int evict_idle_ms = 1000;       // a connection idle this long may make room for a new one
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
    std::string address;  // the peer's IP address; "" for a unix socket
    std::thread thread;
    std::atomic<bool> done{false};
    std::atomic<bool> evicted{false};       // shut down to make room for a new client
    std::atomic<bool> handling{false};      // its session is answering an event
    std::atomic<bool> has_event{false};     // it has sent a whole event
    std::atomic<int64_t> last_event_ms{0};  // steady clock: the last whole event, or the accept
  };
  Server(int listen_fd, std::string bound, const Service* service, const ServerOptions& options)
      : listen_fd_(listen_fd), bound_(std::move(bound)), service_(service), options_(options) {}
  void Accept();
  static bool RatherEvict(const Connection& a, const Connection& b);
  bool MakeRoom(const std::string& address, const std::string& peer);
  void Serve(Connection* connection);
  // Reads `connection`'s next bytes into `buffer` by its deadline (idle or header timeout):
  // recv's result, or 0 with `why` set when the deadline passed.
  ssize_t Receive(Connection* connection, std::vector<char>& buffer, int64_t event_begun_ms,
                  std::string* why);
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
