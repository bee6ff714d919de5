// ragged-train: data-parallel training of a small CNN on Fashion-MNIST with dlib, one MPI rank
// per worker, the parameters averaged after every minibatch by one ragged allreduce (Proficz 2018,
// §6). docs/training.md has the design and the measured runs.
//
// Per minibatch every rank:
//   processing_start                    (the computation phase starts)
//   forward through the network; edge(f) just before the last layer (fc 10) is processed
//   backward, local SGD step, parameters flattened into one float vector
//   processing_end                      a_i (arrival)
//   allreduce(sum) of the vector, with the arrival snapshot for slt/prr/auto
//   f_i (exit); the sum / P is written back into the network
// so every rank holds bit-identical parameters after every step (--check verifies it).
// e_i = f_i - a_i; e-bar is its mean over ranks and minibatches (as ragged-bench pap).
#include <dlib/dnn.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "idx.hpp"
#include "ragged/api.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"

namespace {

// ------------------------------------------------------------------ the edge probe layer

/// An identity layer whose forward pass first calls `hook`: dlib's counterpart of the per-layer
/// callback Proficz 2018 added to tiny-dnn. Placed under the last layer, it marks the moment just
/// before the last layer is processed. No parameters.
class edge_probe_ {
 public:
  std::function<void()> hook;

  template <typename SUBNET>
  void setup(const SUBNET& /*sub*/) {}

  template <typename SUBNET>
  void forward(const SUBNET& sub, dlib::resizable_tensor& output) {
    if (hook) hook();
    output.copy_size(sub.get_output());
    const dlib::tensor& in = sub.get_output();
    std::copy(in.host(), in.host() + in.size(), output.host());
  }

  template <typename SUBNET>
  void backward(const dlib::tensor& gradient_input, SUBNET& sub, dlib::tensor& /*params_grad*/) {
    // dlib's contract: add this layer's data gradient (here gradient_input itself) to sub's.
    dlib::tensor& g = sub.get_gradient_input();
    float* out = g.host();
    const float* in = gradient_input.host();
    for (std::size_t i = 0; i < g.size(); ++i) out[i] += in[i];
  }

  dlib::dpoint map_input_to_output(const dlib::dpoint& p) const { return p; }
  dlib::dpoint map_output_to_input(const dlib::dpoint& p) const { return p; }

  const dlib::tensor& get_layer_params() const { return params_; }
  dlib::tensor& get_layer_params() { return params_; }

  friend void serialize(const edge_probe_& /*item*/, std::ostream& out) { dlib::serialize("edge_probe_", out); }
  friend void deserialize(edge_probe_& /*item*/, std::istream& in) {
    std::string version;
    dlib::deserialize(version, in);
    if (version != "edge_probe_") throw dlib::serialization_error("unexpected '" + version + "' for edge_probe_");
  }
  friend std::ostream& operator<<(std::ostream& out, const edge_probe_& /*item*/) { return out << "edge_probe"; }
  friend void to_xml(const edge_probe_& /*item*/, std::ostream& out) { out << "<edge_probe/>\n"; }

 private:
  dlib::resizable_tensor params_;
};

template <typename SUBNET>
using edge_probe = dlib::add_layer<edge_probe_, SUBNET>;

/// 5x5 convolution, stride 1, no padding (dlib's con pads by default).
template <long filters, typename SUBNET>
using con5 = dlib::add_layer<dlib::con_<filters, 5, 5, 1, 1, 0, 0>, SUBNET>;

// LeNet-like: 28x28 -> con 16@5x5 -> relu -> max pool 2 -> con 32@5x5 -> relu -> max pool 2
// (4x4x32) -> fc 256 -> relu -> [edge probe] -> fc 10 -> softmax log loss. 147,146 parameters (the
// Proficz 2018's CIFAR-10 network has 145,578).
using net_type = dlib::loss_multiclass_log<dlib::fc<
    10, edge_probe<dlib::relu<dlib::fc<
            256, dlib::max_pool<
                     2, 2, 2, 2,
                     dlib::relu<con5<
                         32, dlib::max_pool<2, 2, 2, 2, dlib::relu<con5<16, dlib::input<dlib::matrix<float>>>>>>>>>>>>>;

// ------------------------------------------------------------------ parameters as one vector

std::size_t parameter_count(net_type& net) {
  std::size_t n = 0;
  dlib::visit_layer_parameters(net, [&](dlib::tensor& t) { n += t.size(); });
  return n;
}

void flatten(net_type& net, std::vector<float>& flat) {
  std::size_t at = 0;
  dlib::visit_layer_parameters(net, [&](dlib::tensor& t) {
    if (t.size() == 0) return;
    std::copy(t.host(), t.host() + t.size(), flat.begin() + static_cast<std::ptrdiff_t>(at));
    at += t.size();
  });
}

void unflatten(net_type& net, const std::vector<float>& flat) {
  std::size_t at = 0;
  dlib::visit_layer_parameters(net, [&](dlib::tensor& t) {
    if (t.size() == 0) return;
    std::copy(flat.begin() + static_cast<std::ptrdiff_t>(at), flat.begin() + static_cast<std::ptrdiff_t>(at + t.size()),
              t.host());
    at += t.size();
  });
}

/// FNV-1a over the bytes of the vector: equal hashes on all ranks <=> (practically) equal bits.
std::uint64_t hash_of(const std::vector<float>& flat) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(flat.data());
  for (std::size_t i = 0; i < flat.size() * sizeof(float); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  return h;
}

// ------------------------------------------------------------------ data

/// Deterministic shuffle (Fisher-Yates on splitmix64): the same order on every rank.
void shuffle(std::vector<std::uint32_t>& order, std::uint64_t seed) {
  std::uint64_t state = seed;
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[next() % i]);
}

/// Images [first, first + n) of `order` as a (n, 1, rows, cols) tensor of pixel / 255.
void make_batch(const ragged::train::ImageSet& set, const std::uint32_t* order, std::size_t n,
                dlib::resizable_tensor& x, std::vector<unsigned long>& labels) {
  const std::size_t pixels = set.rows * set.cols;
  x.set_size(static_cast<long long>(n), 1, static_cast<long long>(set.rows), static_cast<long long>(set.cols));
  labels.resize(n);
  float* out = x.host();
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint8_t* img = set.image(order[k]);
    for (std::size_t i = 0; i < pixels; ++i) out[k * pixels + i] = static_cast<float>(img[i]) / 255.0f;
    labels[k] = set.labels[order[k]];
  }
}

// ------------------------------------------------------------------ options and results

struct Options {
  std::string algorithm = "ring";
  int epochs = 1;
  std::size_t batch = 8;  // per rank, as Proficz 2018's 8 images per node
  double lr = 0.01;
  double momentum = 0.9;
  double weight_decay = 0.0005;
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::size_t limit = 0;
  std::size_t test_limit = 0;
  std::string csv;
  std::uint64_t seed = 1;
  double edge_fraction = 0;  // 0: measured online
  int no_edge_rank = -1;
  std::string monitor = "auto";  // auto: for the arrival-aware algorithms only; on; off
  bool check = false;
  bool quiet = false;
  std::string save_params;     // rank 0 writes the final parameters (float32, host order)
  std::string compare_params;  // ... or compares them with such a file
};

struct EpochRow {
  int epoch = 0;
  std::size_t steps = 0;
  double epoch_time = 0;  // max over ranks, s
  double train_time = 0;  // cumulative
  double ebar_epoch = 0;
  double ebar = 0;  // cumulative over every step so far
  double stddev = 0;
  double omega = 0;     // mean of max a - min a per step (clock of one machine)
  double compute = 0;   // mean computation phase per step and rank
  double fraction = 0;  // mean measured edge fraction
  // Arrival estimates (runs whose allreduce got a snapshot): mean |estimated - actual arrival|
  // over ranks and steps, and the share of steps whose latest rank was estimated latest.
  std::optional<double> estimate_error;
  std::optional<double> latest_hit;
  double loss = 0;
  double accuracy = 0;
  std::size_t test_images = 0;
};

double now(ragged::Comm& comm) { return comm.runtime().now(); }

/// Sum over ranks to every rank (plain MPI, outside every timed region).
double sum_all(double v) {
  double out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out;
}
double max_all(double v) {
  double out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/// Test accuracy: every rank classifies its slice of the test set; the counts are summed.
double evaluate(net_type& net, const ragged::train::ImageSet& test, int rank, int procs) {
  const std::size_t n = test.size();
  const std::size_t first = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(procs);
  const std::size_t last = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(procs);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  dlib::resizable_tensor x;
  std::vector<unsigned long> labels;
  std::vector<unsigned long> predicted;
  double correct = 0;
  for (std::size_t at = first; at < last; at += 100) {
    const std::size_t k = std::min<std::size_t>(100, last - at);
    make_batch(test, order.data() + at, k, x, labels);
    predicted.resize(k);
    net(x, predicted.begin());
    for (std::size_t i = 0; i < k; ++i) correct += predicted[i] == labels[i] ? 1 : 0;
  }
  return sum_all(correct) / static_cast<double>(n);
}

// ------------------------------------------------------------------ training

int train(const Options& o) {
  auto comm = ragged::mpi::make_comm(MPI_COMM_WORLD);
  const int procs = comm->size();
  const int rank = comm->rank();
  const auto p = static_cast<std::size_t>(procs);
  const bool arrival_aware =
      o.algorithm == "auto" ||
      ragged::Registry::instance().find(ragged::Collective::allreduce, o.algorithm).restrictions.needs_arrival;
  const bool with_monitor = o.monitor == "on" || (o.monitor == "auto" && arrival_aware);

  const ragged::train::ImageSet train_set = ragged::train::load_idx(o.data, "train", o.limit);
  const ragged::train::ImageSet test_set = ragged::train::load_idx(o.data, "t10k", o.test_limit);
  const std::size_t global_batch = o.batch * p;
  const std::size_t steps_per_epoch = train_set.size() / global_batch;
  if (steps_per_epoch == 0) {
    throw ragged::InvalidArgument(
        "--limit", "fewer images than one global minibatch (" + std::to_string(global_batch) + " = P x --batch)");
  }

  // The network: dlib draws the initial weights at the first forward pass (std::rand); rank 0's
  // are then broadcast so that every rank starts from the same parameters whatever the library does.
  std::srand(static_cast<unsigned>(o.seed));
  net_type net;
  dlib::resizable_tensor x;
  std::vector<unsigned long> labels;
  {
    // dlib's input layer must see to_tensor once; make_batch then builds the same layout.
    const dlib::matrix<float> blank =
        dlib::zeros_matrix<float>(static_cast<long>(train_set.rows), static_cast<long>(train_set.cols));
    net.to_tensor(&blank, &blank + 1, x);
    net.forward(x);
  }
  const std::size_t count = parameter_count(net);
  std::vector<float> local(count);
  std::vector<float> sum(count);
  flatten(net, local);
  MPI_Bcast(local.data(), static_cast<int>(count), MPI_FLOAT, 0, MPI_COMM_WORLD);
  unflatten(net, local);
  std::vector<dlib::sgd> solvers(net_type::num_computational_layers,
                                 dlib::sgd(static_cast<float>(o.weight_decay), static_cast<float>(o.momentum)));

  // The arrival runtime, for the arrival-aware algorithms only (as Proficz 2018's §6 and ragged-bench
  // pap: "the PAP framework ... was initiated only for the latter two").
  // --monitor on runs it for ring and native too (its snapshot is then unused): what the agent
  // thread costs; --monitor off runs slt and prr without estimates (their regular fall-backs).
  std::unique_ptr<ragged::Monitor> monitor;
  if (with_monitor) {
    monitor = std::make_unique<ragged::Monitor>(*comm);
    if (arrival_aware && o.algorithm != "auto") {
      monitor->use(
          ragged::PlannedCall{ragged::Collective::allreduce, o.algorithm, count, ragged::DataType::float32, 0});
    }
  }
  const bool calls_edge = monitor && rank != o.no_edge_rank;

  // The edge: the probe under the last layer calls it during the training forward pass only.
  double step_start = 0;
  double edge_time = 0;
  double fraction_sum = 0;  // measured fractions of the past steps (this rank)
  std::size_t fraction_steps = 0;
  bool in_step = false;
  dlib::layer<2>(net).layer_details().hook = [&] {
    if (!in_step) return;
    edge_time = now(*comm);
    if (!calls_edge) return;
    double f = o.edge_fraction;
    if (f <= 0) f = fraction_steps == 0 ? 0.5 : fraction_sum / static_cast<double>(fraction_steps);
    monitor->edge(std::clamp(f, 0.01, 1.0));
  };

  if (rank == 0 && !o.quiet) {
    std::printf(
        "ragged-train: %s, P = %d, %zu parameters (%zu bytes), %zu training images (%zu steps of %zu x %d), "
        "%zu test images%s\n",
        o.algorithm.c_str(), procs, count, count * sizeof(float), train_set.size(), steps_per_epoch, o.batch, procs,
        test_set.size(), monitor ? ", arrival monitor on" : "");
    if (monitor) {
      // The link model the monitor measured at start-up (ping-pongs): what slt and prr plan with.
      const ragged::LinkModel& link = monitor->link();
      std::printf(
          "link model: alpha %.1f us, beta %.3f ns/byte (%.1f MB/s); tau of one ring segment (%zu bytes) "
          "%.3f ms\n",
          link.alpha * 1e6, link.beta * 1e9, link.beta > 0 ? 1e-6 / link.beta : 0.0, count * sizeof(float) / p,
          link.tau(count * sizeof(float) / p) * 1e3);
    }
    std::printf("%5s %7s %10s %10s %10s %10s %10s %9s %8s %9s %7s %8s %9s\n", "epoch", "steps", "epoch[s]", "train[s]",
                "ebar[ms]", "sd[ms]", "omega[ms]", "comp[ms]", "edge_f", "esterr[ms]", "latest", "loss", "accuracy");
    std::fflush(stdout);
  }

  std::vector<unsigned> hash_mismatch_steps;
  std::size_t checked_steps = 0;
  std::vector<std::string> selected;
  std::vector<std::uint32_t> order(train_set.size());
  std::iota(order.begin(), order.end(), 0u);
  std::vector<double> arrivals(steps_per_epoch);
  std::vector<double> gathered(rank == 0 ? steps_per_epoch * p : 0);
  std::vector<double> estimates(rank == 0 && arrival_aware && monitor ? steps_per_epoch * p : 0);
  std::vector<EpochRow> rows;
  double train_time = 0;
  double e_sum_all = 0;
  double e_sq_all = 0;
  std::size_t steps_all = 0;

  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    shuffle(order, o.seed * 1000003u + static_cast<std::uint64_t>(epoch));
    double e_sum = 0;
    double e_sq = 0;
    double compute_sum = 0;
    double loss_sum = 0;
    double epoch_fraction_sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);  // the evaluation of the last epoch ends unevenly
    const double epoch_start = now(*comm);
    for (std::size_t s = 0; s < steps_per_epoch; ++s) {
      const std::uint32_t* mine = order.data() + s * global_batch + static_cast<std::size_t>(rank) * o.batch;
      // ---- computation phase
      step_start = now(*comm);
      if (monitor) monitor->processing_start();
      make_batch(train_set, mine, o.batch, x, labels);
      in_step = true;
      loss_sum += net.compute_parameter_gradients(x, labels.begin());
      in_step = false;
      net.update_parameters(solvers, o.lr);
      flatten(net, local);
      if (monitor) monitor->processing_end();
      const double a = now(*comm);
      // ---- communication phase: one allreduce of every parameter
      ragged::CollectiveOptions copts;
      copts.algorithm = o.algorithm;
      if (monitor) {
        auto snapshot = monitor->arrive();
        if (!estimates.empty()) {
          std::copy(snapshot->arrivals().begin(), snapshot->arrivals().end(),
                    estimates.begin() + static_cast<std::ptrdiff_t>(s * p));
        }
        if (arrival_aware) copts.hints.set(std::move(snapshot));
      }
      const ragged::Algorithm& ran = ragged::allreduce(*comm, std::span<const float>(local), std::span<float>(sum),
                                                       ragged::ReduceOp::sum(), copts);
      const double f = now(*comm);
      // ---- back into the network (the next step's computation)
      const float inv = 1.0f / static_cast<float>(procs);
      for (std::size_t i = 0; i < count; ++i) sum[i] *= inv;
      unflatten(net, sum);

      const double e = f - a;
      e_sum += e;
      e_sq += e * e;
      compute_sum += a - step_start;
      const double frac = (edge_time - step_start) / (a - step_start);
      fraction_sum += frac;
      epoch_fraction_sum += frac;
      ++fraction_steps;
      arrivals[s] = a - (monitor ? monitor->clock_offset() : 0.0);  // on rank 0's clock
      if (std::find(selected.begin(), selected.end(), ran.name) == selected.end()) selected.push_back(ran.name);

      if (o.check) {  // outside the timed region: the next step starts after it
        std::uint64_t h = hash_of(sum);
        std::vector<std::uint64_t> all(p);
        MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
        if (std::adjacent_find(all.begin(), all.end(), std::not_equal_to<>()) != all.end()) {
          hash_mismatch_steps.push_back(static_cast<unsigned>(s));
        }
        ++checked_steps;
      }
    }
    const double epoch_time = max_all(now(*comm) - epoch_start);
    train_time += epoch_time;

    // ---- per-epoch statistics (plain MPI, not timed)
    MPI_Gather(arrivals.data(), static_cast<int>(steps_per_epoch), MPI_DOUBLE, gathered.data(),
               static_cast<int>(steps_per_epoch), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const double n = static_cast<double>(steps_per_epoch * p);
    EpochRow row;
    row.epoch = epoch;
    row.steps = steps_per_epoch;
    row.epoch_time = epoch_time;
    row.train_time = train_time;
    const double es = sum_all(e_sum);
    const double eq = sum_all(e_sq);
    e_sum_all += es;
    e_sq_all += eq;
    steps_all += steps_per_epoch;
    row.ebar_epoch = es / n;
    const double n_all = static_cast<double>(steps_all * p);
    row.ebar = e_sum_all / n_all;
    row.stddev = std::sqrt(std::max(0.0, e_sq_all / n_all - row.ebar * row.ebar));
    row.compute = sum_all(compute_sum) / n;
    row.fraction = sum_all(epoch_fraction_sum) / n;
    row.loss = sum_all(loss_sum) / n;
    if (rank == 0) {
      double omega = 0;
      for (std::size_t s = 0; s < steps_per_epoch; ++s) {
        double lo = INFINITY;
        double hi = -INFINITY;
        for (std::size_t r = 0; r < p; ++r) {
          lo = std::min(lo, gathered[r * steps_per_epoch + s]);
          hi = std::max(hi, gathered[r * steps_per_epoch + s]);
        }
        omega += hi - lo;
      }
      row.omega = omega / static_cast<double>(steps_per_epoch);
      if (!estimates.empty()) {
        double error = 0;
        std::size_t hits = 0;
        for (std::size_t s = 0; s < steps_per_epoch; ++s) {
          std::size_t latest = 0;
          std::size_t latest_estimated = 0;
          for (std::size_t r = 0; r < p; ++r) {
            const double actual = gathered[r * steps_per_epoch + s];
            error += std::abs(estimates[s * p + r] - actual);
            if (actual > gathered[latest * steps_per_epoch + s]) latest = r;
            if (estimates[s * p + r] > estimates[s * p + latest_estimated]) latest_estimated = r;
          }
          if (latest == latest_estimated) ++hits;
        }
        row.estimate_error = error / n;
        row.latest_hit = static_cast<double>(hits) / static_cast<double>(steps_per_epoch);
      }
    }
    row.accuracy = evaluate(net, test_set, rank, procs);
    row.test_images = test_set.size();
    rows.push_back(row);
    if (rank == 0 && !o.quiet) {
      char estimate[32] = "        -";
      char latest[32] = "      -";
      if (row.estimate_error) std::snprintf(estimate, sizeof estimate, "%9.3f", *row.estimate_error * 1e3);
      if (row.latest_hit) std::snprintf(latest, sizeof latest, "%6.0f%%", *row.latest_hit * 100);
      std::printf("%5d %7zu %10.3f %10.3f %10.3f %10.3f %10.3f %9.3f %8.3f %s %s %8.4f %9.4f\n", row.epoch, row.steps,
                  row.epoch_time, row.train_time, row.ebar_epoch * 1e3, row.stddev * 1e3, row.omega * 1e3,
                  row.compute * 1e3, row.fraction, estimate, latest, row.loss, row.accuracy);
      std::fflush(stdout);
    }
  }
  if (monitor) monitor->finalize();

  // ---- the final parameters, the same on every rank?
  flatten(net, local);
  const std::uint64_t final_hash = hash_of(local);
  std::vector<std::uint64_t> hashes(p);
  MPI_Allgather(&final_hash, 1, MPI_UINT64_T, hashes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  const bool identical = std::adjacent_find(hashes.begin(), hashes.end(), std::not_equal_to<>()) == hashes.end();
  std::string ran_list;
  for (const auto& name : selected) ran_list += (ran_list.empty() ? "" : "+") + name;

  if (rank == 0) {
    const EpochRow& last = rows.back();
    std::printf("summary: algorithm %s (ran %s), P = %d, ebar %.3f ms, training %.3f s, test accuracy %.4f\n",
                o.algorithm.c_str(), ran_list.c_str(), procs, last.ebar * 1e3, last.train_time, last.accuracy);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(final_hash));
    if (identical) {
      std::printf("final parameters: hash %s, identical on all %d ranks\n", hex, procs);
    } else {
      std::printf("final parameters: DIFFER across ranks:");
      for (std::uint64_t h : hashes) std::printf(" %016llx", static_cast<unsigned long long>(h));
      std::printf("\n");
    }
    if (o.check) {
      if (hash_mismatch_steps.empty()) {
        std::printf("check: parameters bit-identical on all %d ranks after every one of %zu steps\n", procs,
                    checked_steps);
      } else {
        std::printf("check: parameters differ across ranks after %zu of %zu steps (first: step %u)\n",
                    hash_mismatch_steps.size(), checked_steps, hash_mismatch_steps.front());
      }
    }
    if (!o.save_params.empty()) {
      std::ofstream out(o.save_params, std::ios::binary);
      out.write(reinterpret_cast<const char*>(local.data()), static_cast<std::streamsize>(count * sizeof(float)));
      if (!out) throw ragged::InvalidArgument("--save-params", "cannot write '" + o.save_params + "'");
    }
    if (!o.compare_params.empty()) {
      std::vector<float> other(count);
      std::ifstream in(o.compare_params, std::ios::binary);
      in.read(reinterpret_cast<char*>(other.data()), static_cast<std::streamsize>(count * sizeof(float)));
      if (!in || in.peek() != std::ifstream::traits_type::eof()) {
        throw ragged::InvalidArgument("--compare-params",
                                      "'" + o.compare_params + "' does not hold " + std::to_string(count) + " floats");
      }
      double diff = 0;
      double norm = 0;
      double max_abs = 0;
      std::size_t equal = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const double d = static_cast<double>(local[i]) - static_cast<double>(other[i]);
        diff += d * d;
        norm += static_cast<double>(other[i]) * static_cast<double>(other[i]);
        max_abs = std::max(max_abs, std::abs(d));
        if (local[i] == other[i]) ++equal;
      }
      std::printf("compare: relative L2 distance %.3e, max |difference| %.3e, %zu of %zu parameters equal\n",
                  std::sqrt(diff / norm), max_abs, equal, count);
    }
    // off; on (edge on every rank); on-no-edge-R
    const std::string monitor_label =
        !monitor ? "off" : (o.no_edge_rank >= 0 ? "on-no-edge-" + std::to_string(o.no_edge_rank) : "on");
    if (!o.csv.empty()) {
      std::ofstream csv(o.csv);
      if (!csv) throw ragged::InvalidArgument("--csv", "cannot write '" + o.csv + "'");
      csv << "algorithm,ran,procs,epoch,steps,batch_per_rank,images_per_epoch,params,bytes,epoch_time_s,"
             "train_time_s,ebar_epoch_s,ebar_s,stddev_s,omega_s,compute_s,edge_fraction,train_loss,"
             "test_accuracy,test_images,monitor,final_hash,estimate_error_s,latest_estimated\n";
      for (const EpochRow& r : rows) {
        char line[1024];
        std::snprintf(
            line, sizeof line,
            "%s,%s,%d,%d,%zu,%zu,%zu,%zu,%zu,%.6f,%.6f,%.9f,%.9f,%.9f,%.9f,%.9f,%.4f,%.6f,%.6f,%zu,%s,%s,%s,%s\n",
            o.algorithm.c_str(), ran_list.c_str(), procs, r.epoch, r.steps, o.batch, r.steps * global_batch, count,
            count * sizeof(float), r.epoch_time, r.train_time, r.ebar_epoch, r.ebar, r.stddev, r.omega, r.compute,
            r.fraction, r.loss, r.accuracy, r.test_images, monitor_label.c_str(), hex,
            r.estimate_error ? std::to_string(*r.estimate_error).c_str() : "",
            r.latest_hit ? std::to_string(*r.latest_hit).c_str() : "");
        csv << line;
      }
    }
  }
  const bool failed = !identical || !hash_mismatch_steps.empty();
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "ragged-train: data-parallel training of a small CNN on Fashion-MNIST (dlib), the parameters\n"
      "averaged after every minibatch by one ragged allreduce. Run under mpirun, one rank per worker."};
  app.add_option("--algorithm", o.algorithm, "allreduce algorithm: ring, slt, prr, native (MPI_Allreduce), auto, ...")
      ->capture_default_str();
  app.add_option("--epochs", o.epochs, "passes over the training images")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--batch", o.batch, "images per rank per minibatch (the global minibatch is P times this)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--lr", o.lr, "learning rate of the local SGD step")->capture_default_str();
  app.add_option("--momentum", o.momentum, "SGD momentum (dlib::sgd)")->capture_default_str();
  app.add_option("--weight-decay", o.weight_decay, "SGD weight decay (dlib::sgd)")->capture_default_str();
  app.add_option("--data", o.data, "directory of the IDX files (plain or .gz)")->capture_default_str();
  app.add_option("--limit", o.limit, "train on the first N training images only (0: all 60000)")->capture_default_str();
  app.add_option("--test-limit", o.test_limit, "evaluate on the first N test images only (0: all 10000)")
      ->capture_default_str();
  app.add_option("--csv", o.csv, "write one row per epoch to this file (rank 0)");
  app.add_option("--seed", o.seed, "initial weights and the shuffling of every epoch")->capture_default_str();
  app.add_option("--edge-fraction", o.edge_fraction,
                 "fraction passed to edge(); 0: this rank's mean measured fraction of the past steps")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--monitor", o.monitor,
                 "arrival monitor: auto (for slt, prr and auto only, as Proficz 2018), on (every algorithm), off")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--no-edge-rank", o.no_edge_rank, "this rank never calls edge() (tests the fall-back)");
  app.add_option("--save-params", o.save_params, "write the final parameters to this file (raw float32, rank 0)");
  app.add_option("--compare-params", o.compare_params,
                 "print the distance of the final parameters to those of a --save-params file (rank 0)");
  app.add_flag("--check", o.check, "compare a hash of the parameters across ranks after every step (not timed)");
  app.add_flag("--quiet", o.quiet, "no per-epoch table");
  CLI11_PARSE(app, argc, argv);

  std::unique_ptr<ragged::mpi::Session> session;
  try {
    session = std::make_unique<ragged::mpi::Session>(&argc, &argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ragged-train: %s\n", e.what());
    return 1;
  }
  int rc = 1;
  try {
    rc = train(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ragged-train: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  session.reset();
  return rc;
}
