// ragged-train: the IDX files of MNIST and Fashion-MNIST (the same format), plain or gzipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ragged::train {

/// Images of rows x cols bytes (0 = white ... 255 = black) and their labels 0..9.
struct ImageSet {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<std::uint8_t> pixels;  ///< size() * rows * cols, image after image, row-major
  std::vector<std::uint8_t> labels;  ///< one per image
  [[nodiscard]] std::size_t size() const { return labels.size(); }
  [[nodiscard]] const std::uint8_t* image(std::size_t i) const { return pixels.data() + i * rows * cols; }
};

/// Reads `<dir>/<part>-images-idx3-ubyte` and `<dir>/<part>-labels-idx1-ubyte` (part "train" or
/// "t10k"), each plain or with ".gz" (Debian's dataset-fashion-mnist ships them gzipped), keeping
/// the first `limit` images (0: all). Throws std::runtime_error naming the file on any problem.
ImageSet load_idx(const std::string& dir, const std::string& part, std::size_t limit = 0);

}  // namespace ragged::train
