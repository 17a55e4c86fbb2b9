#include "wyoming/server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

#include "wyoming/session.h"

namespace earshot::wyoming {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The peer's "HOST:PORT" (or "client N" for a unix socket) and its HOST alone ("" for unix).
std::pair<std::string, std::string> PeerName(const sockaddr_storage& addr, socklen_t len,
                                             int64_t number) {
  if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6) {
    return {"client " + std::to_string(number), ""};
  }
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host, sizeof(host), port,
                  sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return {"client " + std::to_string(number), ""};
  }
  return {std::string(host) + ":" + port, host};
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
// Whether the peer of `fd` has closed or shut down its side: its connection is ending, its thread
// about to see the end, and it holds no slot for a newcomer.
bool PeerHungUp(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

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
    Reap(/*all=*/false);  // before Accept: a slot freed since the last turn is free for it
    if (n > 0 && (fds[0].revents & POLLIN)) Accept();
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
  const auto [peer, address] = PeerName(addr, len, ++accepted_);
  std::lock_guard lock(mutex_);
  if (!MakeRoom(address, peer)) {
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
  c.address = address;
  c.last_event_ms = NowMs();
  c.thread = std::thread(&Server::Serve, this, &c);
}

// Whether a newcomer should rather replace `a` than `b`: a connection that has never sent a whole
// event (an idle or slow socket; a real client sends `describe` within milliseconds of connecting)
// before one that has, the oldest of those first; else the one idle longest.
bool Server::RatherEvict(const Connection& a, const Connection& b) {
  if (a.has_event != b.has_event) return !a.has_event;
  return a.last_event_ms < b.last_event_ms;
}

// Room for a connection from `address` (under mutex_): there is, or a connection (of that address
// when it holds its share, else of all) is shut down for it: the oldest that has never sent a whole
// event, whatever its age, else the one idle longest if that is evict_idle_ms or more. False when
// the new one is refused. Both are logged.
bool Server::MakeRoom(const std::string& address, const std::string& peer) {
  int total = 0, same = 0;
  Connection *victim_all = nullptr, *victim_same = nullptr;
  for (Connection& c : connections_) {
    if (c.done || c.evicted || PeerHungUp(c.fd)) continue;
    ++total;
    const bool same_address = !address.empty() && c.address == address;
    same += same_address ? 1 : 0;
    if (c.handling) continue;  // never a victim
    if (victim_all == nullptr || RatherEvict(c, *victim_all)) victim_all = &c;
    if (same_address && (victim_same == nullptr || RatherEvict(c, *victim_same))) {
      victim_same = &c;
    }
  }
  Connection* victim = nullptr;
  std::string full;
  if (!address.empty() && same >= options_.max_per_address) {
    victim = victim_same;
    full = std::to_string(same) + " connections from " + address;
  } else if (total >= options_.max_connections) {
    victim = victim_all;
    full = std::to_string(total) + " connections";
  } else {
    return true;
  }
  const int64_t idle_ms = victim != nullptr ? NowMs() - victim->last_event_ms : 0;
  if (victim == nullptr || (victim->has_event && idle_ms < options_.evict_idle_ms)) {
    Log(peer + ": refused, " + full + " already, each with an event in the last " +
        std::to_string(options_.evict_idle_ms) + " ms");
    return false;
  }
  Log(victim->peer + ": closed to make room for " + peer + " (" + full + "; " +
      (victim->has_event ? "no event for " : "no whole event since it connected ") +
      std::to_string(idle_ms) + " ms" + (victim->has_event ? ")" : " ago)"));
  victim->evicted = true;
  shutdown(victim->fd, SHUT_RDWR);  // its thread's recv returns
  return true;
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

ssize_t Server::Receive(Connection* c, std::vector<char>& buffer, int64_t event_begun_ms,
                        std::string* why) {
  const bool in_event = event_begun_ms >= 0;
  const int64_t deadline = in_event ? event_begun_ms + options_.header_timeout_ms
                                    : c->last_event_ms + options_.idle_timeout_ms;
  for (;;) {
    const int64_t left = deadline - NowMs();
    if (left <= 0) {
      *why = in_event ? "an event begun " + std::to_string(options_.header_timeout_ms) +
                            " ms ago is not whole (header timeout)"
                      : "no event for " + std::to_string(options_.idle_timeout_ms) +
                            " ms (idle timeout)";
      return 0;
    }
    pollfd p{c->fd, POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 60000)));
    if (n < 0 && errno != EINTR) return -1;
    if (n <= 0) continue;
    const ssize_t got = recv(c->fd, buffer.data(), buffer.size(), 0);
    if (got < 0 && errno == EINTR) continue;
    return got;
  }
}

void Server::Serve(Connection* c) {
  const std::string& peer = c->peer;
  auto log = [&peer](const std::string& line) { Log(peer + ": " + line); };
  Session session(
      *service_, [fd = c->fd](const Event& e) { return SendAll(fd, Encode(e)); }, log);
  EventReader reader(options_.limits);
  std::string why = "closed by the client";
  std::vector<char> buffer(64 * 1024);
  int64_t event_begun_ms = -1;  // when the event in progress began; -1 between events
  auto fail = [&](const std::string& text, const char* code) {
    SendAll(c->fd, Encode({"error", {{"text", text}, {"code", code}}, {}}));
    why = text;
    Linger(c->fd);
  };
  for (bool open = true; open;) {
    std::string timeout;
    const ssize_t n = Receive(c, buffer, event_begun_ms, &timeout);
    if (!timeout.empty()) {
      fail(timeout, "timeout");
      break;
    }
    if (n <= 0) {
      if (n < 0) why = std::string("read: ") + std::strerror(errno);
      if (c->evicted)
        why =
            "closed to make room for a new client (no whole event yet, or idle, while the server "
            "was full)";
      if (!reader.idle()) why += ", in the middle of an event";
      break;
    }
    std::string_view rest(buffer.data(), static_cast<size_t>(n));
    while (open && !rest.empty()) {
      std::optional<Event> event;
      Result<size_t> used = reader.Feed(rest, &event);
      if (!used.ok()) {
        fail(used.error().message, "bad-event");
        open = false;
        break;
      }
      rest.remove_prefix(*used);
      if (!event) continue;
      c->has_event = true;
      c->handling = true;  // a transcription decoding is not idle
      const Status handled = session.Handle(*event);
      c->last_event_ms = NowMs();
      c->handling = false;
      if (!handled.ok()) {
        why = handled.error().message;
        open = false;
        Linger(c->fd);
      }
    }
    if (reader.idle()) {
      event_begun_ms = -1;
    } else if (event_begun_ms < 0) {
      event_begun_ms = NowMs();
    }
  }
  log("connection ended: " + why);
  std::lock_guard lock(mutex_);
  close(c->fd);
  c->fd = -1;
  c->done = true;
}

}  // namespace earshot::wyoming
