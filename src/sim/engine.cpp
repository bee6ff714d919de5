// sim::run and the process-wide SimGrid engine: created once (SimGrid cannot
// make a second one), with one platform loaded once; every run adds its actors
// and calls Engine::run() again.
#include <xbt/log.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "backend.hpp"
#include "platform_check.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/sim.hpp"
#include "world.hpp"

#ifndef RAGGED_PLATFORM_DIR
#define RAGGED_PLATFORM_DIR ""
#endif
#ifndef RAGGED_PLATFORM_INSTALL_DIR
#define RAGGED_PLATFORM_INSTALL_DIR ""
#endif
#ifndef RAGGED_PLATFORM_EXE_RELATIVE_DIR
#define RAGGED_PLATFORM_EXE_RELATIVE_DIR ""
#endif

namespace ragged::sim {

namespace detail {
namespace {
World* g_world = nullptr;
}
World* current_world() { return g_world; }
}  // namespace detail

namespace {

namespace sg4 = simgrid::s4u;
namespace fs = std::filesystem;

/// "node-2" before "node-10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ei = i;
      std::size_t ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])) != 0) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])) != 0) ++ej;
      std::string na = a.substr(i, ei - i);
      std::string nb = b.substr(j, ej - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      if (ei - i != ej - j) return ei - i < ej - j;  // fewer leading zeros first
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

struct EngineState {
  sg4::Engine* engine = nullptr;
  std::string platform;  // canonical path of the loaded platform
  std::vector<sg4::Host*> hosts;
  std::vector<std::string> args;  // the simgrid_args the engine was created with
  double message_gap = 0;         // the platform's ragged/message_gap, in seconds
  std::string message_gap_error;  // why the platform's ragged/message_gap is unusable
  detail::Protocol protocol;      // the other protocol properties (ragged/eager_limit, ...)
  bool zone_is_node = false;      // ragged/node = zone: a host's zone is its node (hosts are cores)
};

/// The zone property through which a platform says what a node is: "host" (the default: every
/// host is a node, as in cluster-1gbe-48) or "zone" (the zone directly holding a host is its
/// node and the hosts are its cores, as in infiniband-qdr-560 and galileo-opa-16x4).
constexpr const char* node_property = "ragged/node";

/// The zone property through which a platform declares LogGP's per-message gap.
constexpr const char* message_gap_property = "ragged/message_gap";

/// A duration as SimGrid's platform files write them: a number and a unit (s, ms, us, ns,
/// ps; none: seconds). Empty when `text` is not one, or is negative or not finite.
std::optional<double> parse_duration(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value) || value < 0) return std::nullopt;
  std::string unit(end);
  unit.erase(0, std::min(unit.find_first_not_of(' '), unit.size()));
  if (unit.empty() || unit == "s") return value;
  if (unit == "ms") return value * 1e-3;
  if (unit == "us") return value * 1e-6;
  if (unit == "ns") return value * 1e-9;
  if (unit == "ps") return value * 1e-12;
  return std::nullopt;
}

void check_gap(double gap) {
  if (!std::isfinite(gap) || gap < 0) {
    throw InvalidArgument("message_gap", "must be a finite value >= 0, got " + std::to_string(gap));
  }
}

EngineState& engine_state() {
  static EngineState state;
  return state;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(path), ec);
  return ec ? path : p.string();
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

EngineState& ensure_engine(const Config& config) {
  const std::string path = canonical(platform_path(config.platform));
  EngineState& st = engine_state();
  if (st.engine == nullptr) {
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".xml") == 0) {
      // SimGrid aborts the process on a zero bandwidth, naming neither file nor attribute.
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      check_platform_numbers(text.str(), path);
    }
    std::vector<std::string> args{"ragged-sim", "--log=root.thresh:warning", "--log=no_loc"};
#ifdef RAGGED_SIM_THREAD_CONTEXTS
    // Sanitizers cannot follow stack switching: one system thread per actor.
    args.emplace_back("--cfg=contexts/factory:thread");
#endif
    args.insert(args.end(), config.simgrid_args.begin(), config.simgrid_args.end());
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int argc = static_cast<int>(args.size());
    st.engine = new sg4::Engine(&argc, argv.data());  // lives as long as the process: SimGrid has one engine
    sg4::Engine::on_deadlock_cb([] {
      if (detail::g_world != nullptr) detail::g_world->on_simgrid_deadlock();
    });
    st.engine->load_platform(path);
    // Routing tables (Floyd's) exist once the platform is sealed; the network model reads
    // routes before the first run (platform_network()).
    st.engine->seal_platform();
    st.platform = path;
    st.args = config.simgrid_args;
    st.hosts = st.engine->get_all_hosts();
    std::sort(st.hosts.begin(), st.hosts.end(),
              [](const sg4::Host* a, const sg4::Host* b) { return natural_less(a->get_name(), b->get_name()); });
    if (st.hosts.empty()) throw InvalidArgument("platform", "platform " + path + " has no host");
    // Read once; a malformed value fails this run and every later one.
    sg4::NetZone* root = st.engine->get_netzone_root();
    const auto duration = [&](const char* property, double& into) {
      const char* text = root->get_property(property);
      if (text == nullptr || !st.message_gap_error.empty()) return;
      if (const std::optional<double> d = parse_duration(text)) {
        into = *d;
      } else {
        st.message_gap_error = path + ": " + property + " is '" + text +
                               "', expected a duration >= 0 such as 0.5us (units s, ms, us, ns, ps)";
      }
    };
    duration(message_gap_property, st.message_gap);
    duration("ragged/rendezvous_delay", st.protocol.rendezvous_delay);
    duration("ragged/connect_delay", st.protocol.connect_delay);
    const auto number = [&](const char* property, double& into) {
      const char* text = root->get_property(property);
      if (text == nullptr || !st.message_gap_error.empty()) return;
      char* end = nullptr;
      const double v = std::strtod(text, &end);
      if (end == text || *end != '\0' || !std::isfinite(v) || v < 0) {
        st.message_gap_error = path + ": " + property + " is '" + text + "', expected a number >= 0";
      } else {
        into = v;
      }
    };
    number("ragged/rendezvous_round_trips", st.protocol.rendezvous_round_trips);
    number("ragged/connect_round_trips", st.protocol.connect_round_trips);
    if (const char* text = root->get_property("ragged/exchange_factor");
        text != nullptr && st.message_gap_error.empty()) {
      char* end = nullptr;
      const double v = std::strtod(text, &end);
      if (end == text || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 1) {
        st.message_gap_error =
            path + ": ragged/exchange_factor is '" + std::string(text) + "', expected a number in (0, 1]";
      } else {
        st.protocol.exchange_factor = v;
      }
    }
    if (const char* text = root->get_property(node_property); text != nullptr && st.message_gap_error.empty()) {
      const std::string value(text);
      if (value == "zone" || value == "host") {
        st.zone_is_node = value == "zone";
      } else {
        st.message_gap_error = path + ": " + node_property + " is '" + value + "', expected host or zone";
      }
    }
    double fifo = 0;
    number("ragged/pair_fifo", fifo);
    st.protocol.pair_fifo = fifo != 0;
    if (const char* limit = root->get_property("ragged/eager_limit");
        limit != nullptr && st.message_gap_error.empty()) {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(limit, &end, 10);
      if (end == limit || *end != '\0' || limit[0] == '-') {
        st.message_gap_error =
            path + ": ragged/eager_limit is '" + std::string(limit) + "', expected bytes (an integer >= 0)";
      } else {
        st.protocol.eager_limit = static_cast<std::size_t>(v);
      }
    }
  }
  if (path != st.platform) {
    throw InvalidArgument("platform", "this process already simulates " + st.platform +
                                          "; SimGrid cannot load a second platform (" + path +
                                          "): use one platform per process");
  }
  if (config.simgrid_args != st.args) {
    for (const std::string& a : config.simgrid_args) {
      if (a.rfind("--log=", 0) == 0) {
        xbt_log_control_set(a.substr(6).c_str());
      } else if (std::find(st.args.begin(), st.args.end(), a) == st.args.end()) {
        throw InvalidArgument(
            "simgrid_args",
            "'" + a + "' can only be given to the first sim::run of a process (it had: " + join(st.args) + ")");
      }
    }
  }
  if (!st.message_gap_error.empty()) throw InvalidArgument("platform", st.message_gap_error);
  return st;
}

/// The link of the route from `a` to `b`: its latency sum and its bottleneck's seconds per byte
/// (unknown, all zero, for an empty route: a host without a loopback talks to itself for free).
LinkModel route_link(sg4::Host* a, sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  a->route_to(b, links, &latency);
  double bandwidth = 0;
  for (const sg4::Link* link : links) {
    const double bw = link->get_bandwidth();
    if (bw > 0 && (bandwidth == 0 || bw < bandwidth)) bandwidth = bw;
  }
  return LinkModel{latency, bandwidth > 0 ? 1 / bandwidth : 0};
}

/// The bandwidth of the links that the routes between two disjoint pairs of a node's ranks both
/// cross (a node zone's backbone: the node's memory, which all its ranks' transfers share), the
/// slowest of them; 0 without four ranks on four hosts, or without such a link.
double shared_node_bandwidth(const std::vector<int>& members, const std::vector<sg4::Host*>& rank_hosts) {
  if (members.size() < 4) return 0;
  sg4::Host* h[4];
  for (std::size_t i = 0; i < 4; ++i) h[i] = rank_hosts[static_cast<std::size_t>(members[i])];
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      if (h[i] == h[j]) return 0;
    }
  }
  std::vector<sg4::Link*> first;
  std::vector<sg4::Link*> second;
  double latency = 0;
  h[0]->route_to(h[1], first, &latency);
  h[2]->route_to(h[3], second, &latency);
  double bandwidth = 0;
  for (const sg4::Link* link : first) {
    if (std::find(second.begin(), second.end(), link) == second.end()) continue;
    const double bw = link->get_bandwidth();
    if (bw > 0 && (bandwidth == 0 || bw < bandwidth)) bandwidth = bw;
  }
  return bandwidth;
}

/// The layout of ranks placed on `rank_hosts` (docs/backends/sim.md, "Layout"): ranks on one
/// host share its node; with ragged/node = zone, so do ranks whose hosts are in one zone. The
/// site of a node is the zone around it, kept only when there are two or more.
std::shared_ptr<const NodeLayout> platform_layout(const EngineState& st, const std::vector<sg4::Host*>& rank_hosts) {
  std::vector<std::string> labels;
  std::vector<std::string> site_of_rank;
  for (const sg4::Host* h : rank_hosts) {
    const sg4::NetZone* zone = h->get_englobing_zone();
    if (st.zone_is_node) {
      labels.push_back(zone->get_name());
      const sg4::NetZone* parent = zone->get_parent();
      site_of_rank.emplace_back(parent != nullptr ? parent->get_name() : zone->get_name());
    } else {
      labels.push_back(h->get_name());
      site_of_rank.emplace_back(zone->get_name());
    }
  }
  auto layout = std::make_shared<NodeLayout>(NodeLayout::from_labels(labels));
  std::vector<std::string> node_sites(static_cast<std::size_t>(layout->nodes()));
  for (std::size_t r = 0; r < rank_hosts.size(); ++r) {
    node_sites[static_cast<std::size_t>(layout->node[r])] = site_of_rank[r];
  }
  const NodeLayout sites = NodeLayout::from_labels(node_sites);
  if (sites.nodes() > 1) layout->site = sites.node;
  return layout;
}

/// What the platform says of the links of ranks on `rank_hosts` laid out as `layout`: between
/// the first two ranks of the first node that holds two, between the leaders of nodes 0 and 1,
/// the message gap (known, 0 when the platform declares none), the protocol's exchange factor and
/// the time a reduction takes an element.
std::shared_ptr<const NetworkModel> platform_network(const NodeLayout& layout,
                                                     const std::vector<sg4::Host*>& rank_hosts, double gap,
                                                     const detail::Protocol& protocol) {
  auto net = std::make_shared<NetworkModel>();
  net->gap = gap;
  net->gap_known = true;  // the simulator's own: 0 when the platform declares none
  if (protocol.exchange_factor < 1 && protocol.eager_limit > 0) {
    net->exchange_factor = protocol.exchange_factor;
    net->eager_limit = protocol.eager_limit;
  }
  for (int n = 0; n < layout.nodes(); ++n) {
    const std::vector<int> members = layout.members(n);
    if (members.size() >= 2) {
      net->intra = route_link(rank_hosts[static_cast<std::size_t>(members[0])],
                              rank_hosts[static_cast<std::size_t>(members[1])]);
      net->node_bandwidth = shared_node_bandwidth(members, rank_hosts);
      break;
    }
  }
  if (layout.nodes() >= 2) {
    const std::vector<int> leaders = layout.leaders();
    net->inter =
        route_link(rank_hosts[static_cast<std::size_t>(leaders[0])], rank_hosts[static_cast<std::size_t>(leaders[1])]);
  }
  // A reduction charges a flop an element (SimRuntime::charge): the slowest rank's host sets the pace.
  for (sg4::Host* host : rank_hosts) {
    if (host->get_speed() > 0) net->reduce_element = std::max(net->reduce_element, 1.0 / host->get_speed());
  }
  return net;
}

}  // namespace

std::vector<std::string> shipped_platforms() {
  return {"cluster-1gbe-48",    "infiniband-qdr-560",      "two-clusters-30-30",
          "two-clusters-20-40", "three-clusters-18-30-12", "four-clusters-16-4-24-12",
          "skylake-fdr-32",     "marenostrum4-opa-32",     "galileo-opa-16x4"};
}

std::string platform_path(std::string_view name_or_path) {
  std::string name(name_or_path);
  const auto shipped = shipped_platforms();
  if (std::find(shipped.begin(), shipped.end(), name) != shipped.end()) {
    // $RAGGED_PLATFORM_PATH, the source tree (a build run in place), beside the running program
    // as installed (an installed tree moved elsewhere, e.g. a package unpacked into a scratch
    // root), the install prefix.
    std::vector<fs::path> dirs;
    if (const char* env = std::getenv("RAGGED_PLATFORM_PATH"); env != nullptr && *env != '\0') dirs.emplace_back(env);
    if (*RAGGED_PLATFORM_DIR != '\0') dirs.emplace_back(RAGGED_PLATFORM_DIR);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && *RAGGED_PLATFORM_EXE_RELATIVE_DIR != '\0') {
      dirs.push_back((exe.parent_path() / RAGGED_PLATFORM_EXE_RELATIVE_DIR).lexically_normal());
    }
    if (*RAGGED_PLATFORM_INSTALL_DIR != '\0') dirs.emplace_back(RAGGED_PLATFORM_INSTALL_DIR);
    std::string tried;
    for (const fs::path& dir : dirs) {
      const fs::path p = dir / (name + ".xml");
      if (fs::is_regular_file(p, ec)) return p.string();
      tried += (tried.empty() ? "" : ", ") + dir.string();
    }
    throw InvalidArgument("platform", "shipped platform '" + name + "' is missing from " + tried);
  }
  std::error_code ec;
  if (!name.empty() && fs::is_regular_file(fs::path(name), ec)) return name;
  throw InvalidArgument(
      "platform", "'" + name + "' is neither a shipped platform (" + join(shipped) + ") nor an existing XML file");
}

Placement placement(const Config& config) {
  if (config.procs < 1) throw InvalidArgument("procs", "must be >= 1, got " + std::to_string(config.procs));
  const EngineState& st = ensure_engine(config);
  Placement out;
  for (int r = 0; r < config.procs; ++r) {
    const sg4::Host* h = st.hosts[static_cast<std::size_t>(r) % st.hosts.size()];
    out.host.push_back(h->get_name());
    out.zone.push_back(h->get_englobing_zone()->get_name());
  }
  return out;
}

double message_gap(const Config& config) {
  if (config.message_gap) {
    check_gap(*config.message_gap);
    return *config.message_gap;
  }
  return ensure_engine(config).message_gap;
}

void run(const Config& config, const std::function<void(Comm&)>& rank_main) {
  if (detail::g_world != nullptr) throw Error("sim::run: called from inside a running simulation");
  if (config.procs < 1) throw InvalidArgument("procs", "must be >= 1, got " + std::to_string(config.procs));
  if (!rank_main) throw InvalidArgument("rank_main", "empty function");
  if (config.message_gap) check_gap(*config.message_gap);
  EngineState& st = ensure_engine(config);

  std::vector<sg4::Host*> rank_hosts;
  rank_hosts.reserve(static_cast<std::size_t>(config.procs));
  for (int r = 0; r < config.procs; ++r) rank_hosts.push_back(st.hosts[static_cast<std::size_t>(r) % st.hosts.size()]);
  std::shared_ptr<const NodeLayout> layout = platform_layout(st, rank_hosts);
  std::shared_ptr<const NetworkModel> network =
      platform_network(*layout, rank_hosts, config.message_gap.value_or(st.message_gap), st.protocol);
  detail::World world(config.procs, std::move(rank_hosts), sg4::Engine::get_clock(),
                      config.message_gap.value_or(st.message_gap), st.protocol);
  world.set_topology(std::move(layout), std::move(network));
  detail::g_world = &world;
  struct Reset {
    ~Reset() { detail::g_world = nullptr; }
  } reset;
  for (int r = 0; r < config.procs; ++r) {
    world.spawn("rank" + std::to_string(r), world.host_of(r), r, "main",
                [&world, &rank_main, r](detail::ActorCtl&) { rank_main(world.comm(r)); });
  }
  st.engine->run();
  if (world.first_error()) std::rethrow_exception(world.first_error());
}

}  // namespace ragged::sim
