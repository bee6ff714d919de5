// Matrix factorisation trained with SGD (Iakymchuk et al. 2021, §V-a, fig. 6): the ratings, the model and
// its training steps, without communication. The consistency bench's mf-sgd experiment
// averages the workers' models with SspAllreduce.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace ragged::bench::mf {

struct Rating {
  std::uint32_t user = 0;
  std::uint32_t item = 0;
  float value = 0;
};

struct Ratings {
  std::uint32_t users = 0;
  std::uint32_t items = 0;
  std::vector<Rating> train;
  std::vector<Rating> test;
  std::string source;  ///< "synthetic ..." or the file read
};

/// MovieLens 25M cannot be had offline: a rating matrix with its proportions, generated from a
/// rank-`rank` model plus Gaussian noise, rounded to MovieLens' half stars in [0.5, 5]. Users
/// and items keep MovieLens 25M's ratio (162,541 users : 59,047 movies = 2.75 : 1); each user
/// rates `per_user` distinct items (MovieLens 25M: 153 on average), so the density is
/// per_user / items. Every tenth rating (by a hash of the pair) is held out for the error.
Ratings synthetic(std::uint32_t users, std::uint32_t per_user, int rank, double noise, std::uint64_t seed);

/// The real thing, for users who have it: MovieLens' ratings.csv ("userId,movieId,rating,
/// timestamp" with a header line); ids are renumbered densely in order of appearance. Throws
/// std::runtime_error naming the file and line of a malformed row.
Ratings load_movielens(const std::string& path);
/// The same from a stream; `name` stands for the file in the messages and in Ratings::source.
Ratings read_movielens(std::istream& in, const std::string& name);

/// Factors of every user and item, `rank` each, in one vector (users first): what the workers
/// average. The global mean of the training ratings is the bias.
struct Model {
  std::uint32_t users = 0;
  std::uint32_t items = 0;
  int rank = 0;
  double mean = 0;
  std::vector<double> factors;
  [[nodiscard]] double predict(std::uint32_t user, std::uint32_t item) const;
};

/// Small random factors, the same for a given seed on every rank.
Model initial_model(const Ratings& ratings, int rank, std::uint64_t seed);

/// `steps` SGD updates on ratings of `shard` drawn with `rng_state` (advanced), learning rate
/// `lr`, L2 regularisation `reg`.
void sgd(Model& model, const std::vector<Rating>& shard, int steps, double lr, double reg, std::uint64_t& rng_state);

/// Root mean square error of `model` on `ratings`.
double rmse(const Model& model, const std::vector<Rating>& ratings);

}  // namespace ragged::bench::mf
