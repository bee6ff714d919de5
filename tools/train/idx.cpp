#include "idx.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace ragged::train {

namespace {

struct GzClose {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzClose>;

/// `name` or `name.gz` in `dir` (gzopen reads both formats).
std::string find_file(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  for (const std::string& candidate : {name, name + ".gz"}) {
    const fs::path p = fs::path(dir) / candidate;
    if (fs::exists(p)) return p.string();
  }
  throw std::runtime_error("no " + name + " (or " + name + ".gz) in '" + dir +
                           "' (Debian: apt-get install dataset-fashion-mnist, then --data "
                           "/usr/share/datasets/fashion-mnist)");
}

void read_exactly(gzFile_s* f, const std::string& path, void* out, std::size_t bytes) {
  auto* at = static_cast<unsigned char*>(out);
  while (bytes > 0) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(bytes, 1u << 30));
    const int got = gzread(f, at, chunk);
    if (got <= 0) throw std::runtime_error(path + ": file ends early");
    at += got;
    bytes -= static_cast<std::size_t>(got);
  }
}

std::uint32_t read_u32(gzFile_s* f, const std::string& path) {
  std::array<unsigned char, 4> b{};
  read_exactly(f, path, b.data(), b.size());
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
}

/// Opens an IDX file of unsigned bytes with `dims` dimensions; returns them (after the magic).
GzFile open_idx(const std::string& path, std::size_t dims, std::vector<std::size_t>& shape) {
  GzFile f(gzopen(path.c_str(), "rb"));
  if (!f) throw std::runtime_error(path + ": cannot open");
  const std::uint32_t magic = read_u32(f.get(), path);
  // 0x00 0x00, type 0x08 (unsigned byte), then the number of dimensions.
  if (magic != (0x0800u | static_cast<std::uint32_t>(dims))) {
    throw std::runtime_error(path + ": not an IDX file of unsigned bytes with " + std::to_string(dims) + " dimensions");
  }
  shape.clear();
  for (std::size_t d = 0; d < dims; ++d) shape.push_back(read_u32(f.get(), path));
  return f;
}

}  // namespace

ImageSet load_idx(const std::string& dir, const std::string& part, std::size_t limit) {
  const std::string images_path = find_file(dir, part + "-images-idx3-ubyte");
  const std::string labels_path = find_file(dir, part + "-labels-idx1-ubyte");
  std::vector<std::size_t> image_shape;
  std::vector<std::size_t> label_shape;
  GzFile images = open_idx(images_path, 3, image_shape);
  GzFile labels = open_idx(labels_path, 1, label_shape);
  if (image_shape[0] != label_shape[0]) {
    throw std::runtime_error(images_path + " has " + std::to_string(image_shape[0]) + " images but " + labels_path +
                             " " + std::to_string(label_shape[0]) + " labels");
  }
  const std::size_t n = limit == 0 ? image_shape[0] : std::min(limit, image_shape[0]);
  ImageSet set;
  set.rows = image_shape[1];
  set.cols = image_shape[2];
  set.pixels.resize(n * set.rows * set.cols);
  set.labels.resize(n);
  read_exactly(images.get(), images_path, set.pixels.data(), set.pixels.size());
  read_exactly(labels.get(), labels_path, set.labels.data(), set.labels.size());
  for (std::uint8_t label : set.labels) {
    if (label > 9) throw std::runtime_error(labels_path + ": label " + std::to_string(label) + " is not 0..9");
  }
  return set;
}

}  // namespace ragged::train
