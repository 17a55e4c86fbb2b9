// earshot-wyoming: the pipeline's VAD, wake words and speech-to-text as a Wyoming protocol server
// (docs/wyoming.md), for Home Assistant and the other Wyoming clients. main only exits.
#include <charconv>
#include <cstdio>

#include "cli/cli.h"
#include "wyoming/server.h"

namespace {

using namespace earshot;

constexpr std::string_view kUsage =
    "usage: earshot-wyoming [--config F] [--set SECTION.KEY=VALUE]... [--uri URI]\n"
    "                       [--decoders N] [--max-connections N] [--max-per-address N]\n"
    "                       [--header-timeout-ms MS] [--idle-timeout-ms MS] [--print-config]\n"
    "                       [--version]\n"
    "\n"
    "Serves earshot's wake words, VAD and speech-to-text over the Wyoming protocol (Home\n"
    "Assistant's Wyoming integration, wyoming-satellite): describe -> info; detect, audio-start,\n"
    "audio-chunk, audio-stop -> voice-started, voice-stopped, detection, not-detected; transcribe\n"
    "and audio -> transcript. Each connection is a stream of its own over the shared models.\n"
    "\n"
    "  --config F            TOML configuration (see --print-config for every key)\n"
    "  --set S.K=V           override one option, e.g. --set kws.sensitivities=0.6\n"
    "  --uri URI             where to listen: tcp://HOST:PORT or unix://PATH\n"
    "                        (default tcp://127.0.0.1:10400; tcp://0.0.0.0:10400 for the network)\n"
    "  --decoders N          speech-to-text decoders per model, 1 to 16 (default 2): transcribe\n"
    "                        requests beyond N at once wait their turn\n"
    "  --max-connections N   1 to 1024 (default 32) at once; when full, a new client takes\n"
    "                        the place of the one idle longest (1 s or more), else is closed\n"
    "  --max-per-address N   1 to 1024 (default 16) at once from one IP address, likewise\n"
    "  --header-timeout-ms MS  an event begun must be whole within MS, 1000 to 600000\n"
    "                        (default 10000); else an error event and the end\n"
    "  --idle-timeout-ms MS  the longest a client may send no event, 1000 to 86400000\n"
    "                        (default 300000); likewise\n"
    "  --print-config        print the effective configuration as TOML and exit\n"
    "  --version             print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT stop it (exit 0). Log lines go to stderr (the journal).\n"
    "Exit status: 0 ok, 1 runtime error (named on stderr), 2 usage error.\n";

int Run(const cli::Args& args);

const cli::Command kCommand = {"earshot-wyoming",
                               "Wyoming protocol server",
                               kUsage,
                               {"--uri", "--decoders", "--max-connections", "--max-per-address",
                                "--header-timeout-ms", "--idle-timeout-ms"},
                               {"--version"},
                               Run};

void PrintError(const std::string& message) {
  std::fprintf(stderr, "earshot-wyoming: %s\n", message.c_str());
}

// --NAME's whole number in [low, high], or an error naming it.
Result<int> IntOption(const cli::Args& args, std::string_view name, int fallback, int low,
                      int high) {
  const std::string text = args.Option(name, std::to_string(fallback));
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < low ||
      value > high) {
    return Error{std::string(name) + " " + text + ": expected " + std::to_string(low) + " to " +
                 std::to_string(high)};
  }
  return value;
}

int Run(const cli::Args& args) {
  if (!args.positional.empty()) {
    PrintError("unexpected argument " + args.positional.front() + " (see --help)");
    return cli::kExitUsage;
  }
  Result<int> decoders = IntOption(args, "--decoders", 2, 1, 16);
  const wyoming::ServerOptions defaults;
  Result<int> max_connections =
      IntOption(args, "--max-connections", defaults.max_connections, 1, 1024);
  Result<int> per_address = IntOption(args, "--max-per-address", defaults.max_per_address, 1, 1024);
  Result<int> header_ms =
      IntOption(args, "--header-timeout-ms", defaults.header_timeout_ms, 1000, 600000);
  Result<int> idle_ms = IntOption(args, "--idle-timeout-ms", defaults.idle_timeout_ms, 1000,
                                  86400000);
  Result<wyoming::ListenUri> uri =
      wyoming::ListenUri::Parse(args.Option("--uri", "tcp://127.0.0.1:10400"));
  for (const Error* e : {decoders.ok() ? nullptr : &decoders.error(),
                         max_connections.ok() ? nullptr : &max_connections.error(),
                         per_address.ok() ? nullptr : &per_address.error(),
                         header_ms.ok() ? nullptr : &header_ms.error(),
                         idle_ms.ok() ? nullptr : &idle_ms.error(),
                         uri.ok() ? nullptr : &uri.error()}) {
    if (e == nullptr) continue;
    PrintError(e->message);
    return cli::kExitUsage;
  }
  int status = 0;
  Result<config::Config> config = cli::LoadConfig(args, &status);
  if (!config.ok()) {
    PrintError(config.error().message);
    return status;
  }
  if (args.print_config) return std::fputs(config->ToToml().c_str(), stdout) < 0 ? 1 : 0;
  auto service = wyoming::Service::Create(*config, {*decoders, 30});
  if (!service.ok()) {
    PrintError(service.error().message);
    return cli::kExitRuntime;
  }
  wyoming::ServerOptions options;
  options.max_connections = *max_connections;
  options.max_per_address = *per_address;
  options.header_timeout_ms = *header_ms;
  options.idle_timeout_ms = *idle_ms;
  auto server = wyoming::Server::Create(*uri, service->get(), options);
  if (!server.ok()) {
    PrintError(server.error().message);
    return cli::kExitRuntime;
  }
  return (*server)->Run();
}

}  // namespace

int main(int argc, char** argv) {
  auto args = cli::Parse(kCommand, argc, argv, 1);
  if (!args.ok()) {
    PrintError(args.error().message);
    return cli::kExitUsage;
  }
  if (args->help) return std::fwrite(kUsage.data(), 1, kUsage.size(), stdout) > 0 ? 0 : 1;
  if (args->Has("--version"))
    return std::printf("earshot-wyoming %s\n", EARSHOT_VERSION) > 0 ? 0 : 1;
  return Run(*args);
}
