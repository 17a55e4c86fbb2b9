#include "wyoming/server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

#include "wyoming/session.h"

namespace earshot::wyoming {
namespace {

std::string PeerName(const sockaddr_storage& addr, socklen_t len, int64_t number) {
  if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6) {
    return "client " + std::to_string(number);
  }
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host, sizeof(host), port,
                  sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "client " + std::to_string(number);
  }
  return std::string(host) + ":" + port;
}

// Writes all of `bytes`; false when the socket fails or the send timeout passes.
bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Ends a connection the server gives up on, after the error event: no more writes, and what the
// client still sends (up to 1 MB, for up to a second) is read and dropped, so that the close is not
// a reset that could destroy the error event before the client reads it.
void Linger(int fd) {
  shutdown(fd, SHUT_WR);
  std::vector<char> sink(64 * 1024);
  for (int i = 0; i < 16; ++i) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 1000 / 16) <= 0 || recv(fd, sink.data(), sink.size(), 0) <= 0) return;
  }
}

}  // namespace

void Log(const std::string& message) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::fprintf(stderr, "earshot-wyoming: %s\n", message.c_str());
}

Result<std::unique_ptr<Server>> Server::Create(const ListenUri& uri, const Service* service,
                                               const ServerOptions& options) {
  std::string bound;
  Result<int> fd = Listen(uri, &bound);
  if (!fd.ok()) return fd.error();
  return std::unique_ptr<Server>(new Server(*fd, bound, service, options));
}

Server::~Server() {
  Reap(/*all=*/true);
  if (listen_fd_ >= 0) close(listen_fd_);
}

int Server::Run() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);  // before any connection thread: they inherit it
  const int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
  if (signal_fd < 0) {
    Log(std::string("signalfd: ") + std::strerror(errno));
    return 1;
  }
  uint64_t watchdog_usec = 0;
  const bool watchdog = sd_watchdog_enabled(0, &watchdog_usec) > 0;
  const int timeout_ms = watchdog ? static_cast<int>(watchdog_usec / 2000) : 1000;
  Log("listening on " + bound_);
  sd_notifyf(0, "READY=1\nSTATUS=listening on %s", bound_.c_str());
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {signal_fd, POLLIN, 0}};
    const int n = poll(fds, 2, timeout_ms);
    if (n < 0 && errno != EINTR) {
      Log(std::string("poll: ") + std::strerror(errno));
      break;
    }
    if (watchdog) sd_notify(0, "WATCHDOG=1");
    if (n > 0 && (fds[1].revents & POLLIN)) break;
    if (n > 0 && (fds[0].revents & POLLIN)) Accept();
    Reap(/*all=*/false);
  }
  sd_notify(0, "STOPPING=1");
  Log("stopping");
  close(signal_fd);
  Reap(/*all=*/true);
  return 0;
}

void Server::Accept() {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno != EAGAIN && errno != EINTR) Log(std::string("accept: ") + std::strerror(errno));
    return;
  }
  const std::string peer = PeerName(addr, len, ++accepted_);
  std::lock_guard lock(mutex_);
  if (static_cast<int>(connections_.size()) >= options_.max_connections) {
    Log(peer + ": refused, " + std::to_string(connections_.size()) + " connections already");
    close(fd);
    return;
  }
  const timeval send_timeout{options_.send_timeout_ms / 1000,
                             (options_.send_timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
  if (addr.ss_family == AF_INET || addr.ss_family == AF_INET6) {
    // A client that vanishes without closing (a satellite unplugged) is found within about 90 s,
    // freeing its connection slot: probes after 60 s of silence, every 10 s, 3 unanswered.
    const int on = 1, idle_s = 60, interval_s = 10, count = 3;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof(interval_s));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
  }
  Connection& c = connections_.emplace_back();
  c.fd = fd;
  c.peer = peer;
  c.thread = std::thread(&Server::Serve, this, &c);
}

void Server::Reap(bool all) {
  std::list<Connection> finished;
  {
    std::lock_guard lock(mutex_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      if (all && it->fd >= 0) shutdown(it->fd, SHUT_RDWR);  // its thread's recv returns
      auto next = std::next(it);
      if (all || it->done) finished.splice(finished.end(), connections_, it);
      it = next;
    }
  }
  for (Connection& c : finished) c.thread.join();
}

void Server::Serve(Connection* c) {
  const std::string& peer = c->peer;
  auto log = [&peer](const std::string& line) { Log(peer + ": " + line); };
  Session session(
      *service_, [fd = c->fd](const Event& e) { return SendAll(fd, Encode(e)); }, log);
  EventReader reader(options_.limits);
  std::string why = "closed by the client";
  std::vector<char> buffer(64 * 1024);
  bool open = true;
  while (open) {
    const ssize_t n = recv(c->fd, buffer.data(), buffer.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) why = std::string("read: ") + std::strerror(errno);
      if (!reader.idle()) why += ", in the middle of an event";
      break;
    }
    std::string_view rest(buffer.data(), static_cast<size_t>(n));
    while (open && !rest.empty()) {
      std::optional<Event> event;
      Result<size_t> used = reader.Feed(rest, &event);
      if (!used.ok()) {
        SendAll(c->fd,
                Encode({"error", {{"text", used.error().message}, {"code", "bad-event"}}, {}}));
        why = used.error().message;
        open = false;
        Linger(c->fd);
        break;
      }
      rest.remove_prefix(*used);
      if (!event) continue;
      if (Status s = session.Handle(*event); !s.ok()) {
        why = s.error().message;
        open = false;
        Linger(c->fd);
      }
    }
  }
  log("connection ended: " + why);
  std::lock_guard lock(mutex_);
  close(c->fd);
  c->fd = -1;
  c->done = true;
}

}  // namespace earshot::wyoming
