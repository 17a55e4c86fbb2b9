// Where the service listens, as the Wyoming services write it: tcp://HOST:PORT (HOST a name or an
// address, [v6] in brackets) or unix://PATH.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace earshot::wyoming {

struct ListenUri {
  enum class Kind { kTcp, kUnix } kind = Kind::kTcp;
  std::string host;  // tcp: without brackets
  int port = 0;      // tcp: 0 .. 65535 (0: any free port, reported in the log)
  std::string path;  // unix
  static Result<ListenUri> Parse(std::string_view text);
};

// A listening socket for `uri` (a stale unix socket file is replaced; any other file there is an
// error); the socket's address as text ("tcp://127.0.0.1:10400") in `*bound`.
Result<int> Listen(const ListenUri& uri, std::string* bound);

}  // namespace earshot::wyoming
