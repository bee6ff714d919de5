#include "mf_sgd.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace ragged::bench::mf {

namespace {

bool held_out(std::uint32_t user, std::uint32_t item) {
  std::uint64_t h = (std::uint64_t{user} << 32) ^ item;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h % 10 == 0;
}

void add(Ratings& r, std::uint32_t user, std::uint32_t item, float value) {
  (held_out(user, item) ? r.test : r.train).push_back({user, item, value});
}

std::uint64_t next(std::uint64_t& state) {  // splitmix64
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Ratings synthetic(std::uint32_t users, std::uint32_t per_user, int rank, double noise, std::uint64_t seed) {
  if (users == 0 || rank <= 0) throw std::invalid_argument("synthetic ratings need users and a rank");
  Ratings out;
  out.users = users;
  out.items = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::lround(users / 2.7527)));
  per_user = std::min(per_user, out.items);
  std::mt19937_64 rng(seed);
  // Factors of variance rank^-1/2: the dot product of two has variance 1.
  std::normal_distribution<double> factor(0.0, std::pow(static_cast<double>(rank), -0.25));
  std::normal_distribution<double> error(0.0, noise);
  const auto k = static_cast<std::size_t>(rank);
  std::vector<double> u(static_cast<std::size_t>(users) * k);
  std::vector<double> v(static_cast<std::size_t>(out.items) * k);
  for (double& x : u) x = factor(rng);
  for (double& x : v) x = factor(rng);
  std::uniform_int_distribution<std::uint32_t> pick(0, out.items - 1);
  for (std::uint32_t user = 0; user < users; ++user) {
    std::unordered_set<std::uint32_t> seen;
    while (seen.size() < per_user) {
      const std::uint32_t item = pick(rng);
      if (!seen.insert(item).second) continue;
      double dot = 0;
      for (std::size_t f = 0; f < k; ++f) dot += u[user * k + f] * v[item * k + f];
      const double raw = 3.5 + dot + error(rng);
      const double stars = std::clamp(std::round(raw * 2) / 2, 0.5, 5.0);
      add(out, user, item, static_cast<float>(stars));
    }
  }
  out.source = "synthetic: " + std::to_string(users) + " users x " + std::to_string(out.items) + " items, " +
               std::to_string(per_user) + " ratings per user, rank " + std::to_string(rank) + ", noise " +
               std::to_string(noise);
  return out;
}

Ratings load_movielens(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return read_movielens(in, path);
}

Ratings read_movielens(std::istream& in, const std::string& path) {
  Ratings out;
  std::unordered_map<std::uint64_t, std::uint32_t> users;
  std::unordered_map<std::uint64_t, std::uint32_t> items;
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (number == 1 && line.rfind("userId", 0) == 0) continue;
    std::istringstream fields(line);
    std::string user_text;
    std::string item_text;
    std::string rating_text;
    if (!std::getline(fields, user_text, ',') || !std::getline(fields, item_text, ',') ||
        !std::getline(fields, rating_text, ',')) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": expected userId,movieId,rating[,timestamp]");
    }
    std::uint64_t user_id = 0;
    std::uint64_t item_id = 0;
    double rating = 0;
    try {
      // Ids of digits only and a plain decimal rating: stoull takes "-1" as 2^64 - 1, and both
      // skip leading spaces and take a sign; stod also takes hexadecimal.
      const auto digits = [](const std::string& t) {
        return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
      };
      const auto decimal = [](const std::string& t) {
        return !t.empty() && ((t[0] >= '0' && t[0] <= '9') || t[0] == '.') &&
               std::all_of(t.begin(), t.end(), [](char c) {
                 return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
               });
      };
      if (!digits(user_text) || !digits(item_text) || !decimal(rating_text)) throw std::invalid_argument("field");
      std::size_t used = 0;
      user_id = std::stoull(user_text, &used);
      if (used != user_text.size()) throw std::invalid_argument("userId");
      item_id = std::stoull(item_text, &used);
      if (used != item_text.size()) throw std::invalid_argument("movieId");
      rating = std::stod(rating_text, &used);
      if (used != rating_text.size() || !(rating >= 0 && rating <= 10)) throw std::invalid_argument("rating");
    } catch (const std::exception&) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": expected userId,movieId,rating[,timestamp]");
    }
    const auto user = users.try_emplace(user_id, static_cast<std::uint32_t>(users.size())).first->second;
    const auto item = items.try_emplace(item_id, static_cast<std::uint32_t>(items.size())).first->second;
    add(out, user, item, static_cast<float>(rating));
  }
  if (out.train.empty()) throw std::runtime_error(path + ": no ratings");
  out.users = static_cast<std::uint32_t>(users.size());
  out.items = static_cast<std::uint32_t>(items.size());
  out.source = path;
  return out;
}

double Model::predict(std::uint32_t user, std::uint32_t item) const {
  const auto k = static_cast<std::size_t>(rank);
  const double* p = factors.data() + static_cast<std::size_t>(user) * k;
  const double* q = factors.data() + (static_cast<std::size_t>(users) + item) * k;
  double dot = 0;
  for (std::size_t f = 0; f < k; ++f) dot += p[f] * q[f];
  return mean + dot;
}

Model initial_model(const Ratings& ratings, int rank, std::uint64_t seed) {
  Model m;
  m.users = ratings.users;
  m.items = ratings.items;
  m.rank = rank;
  double sum = 0;
  for (const Rating& r : ratings.train) sum += static_cast<double>(r.value);
  m.mean = ratings.train.empty() ? 0 : sum / static_cast<double>(ratings.train.size());
  m.factors.resize((static_cast<std::size_t>(m.users) + m.items) * static_cast<std::size_t>(rank));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> small(0.0, 0.1);
  for (double& x : m.factors) x = small(rng);
  return m;
}

void sgd(Model& model, const std::vector<Rating>& shard, int steps, double lr, double reg, std::uint64_t& rng_state) {
  if (shard.empty()) return;
  const auto k = static_cast<std::size_t>(model.rank);
  for (int s = 0; s < steps; ++s) {
    const Rating& r = shard[next(rng_state) % shard.size()];
    double* p = model.factors.data() + static_cast<std::size_t>(r.user) * k;
    double* q = model.factors.data() + (static_cast<std::size_t>(model.users) + r.item) * k;
    const double e = static_cast<double>(r.value) - model.predict(r.user, r.item);
    for (std::size_t f = 0; f < k; ++f) {
      const double pf = p[f];
      p[f] += lr * (e * q[f] - reg * pf);
      q[f] += lr * (e * pf - reg * q[f]);
    }
  }
}

double rmse(const Model& model, const std::vector<Rating>& ratings) {
  if (ratings.empty()) return 0;
  double sum = 0;
  for (const Rating& r : ratings) {
    const double e = static_cast<double>(r.value) - model.predict(r.user, r.item);
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(ratings.size()));
}

}  // namespace ragged::bench::mf
