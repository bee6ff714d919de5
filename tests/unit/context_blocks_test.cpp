// The Context's static helpers for a call's blocks: bytes(count, type) and the BlockView of
// blocks(buffer, block).
#include <gtest/gtest.h>

#include <array>
#include <cstddef>

#include "ragged/context.hpp"

namespace ragged {
namespace test_context_blocks_test {

TEST(ContextBlocks, BytesIsCountTimesTheElementSize) {
  EXPECT_EQ(Context::bytes(0, DataType::float64), 0U);
  EXPECT_EQ(Context::bytes(3, DataType::byte), 3U);
  EXPECT_EQ(Context::bytes(3, DataType::int32), 12U);
  EXPECT_EQ(Context::bytes(5, DataType::int64), 40U);
  EXPECT_EQ(Context::bytes(7, DataType::float32), 28U);
}

TEST(ContextBlocks, BlockViewAddressesBlockIAtIBlocks) {
  std::array<std::byte, 24> buffer{};
  const auto view = Context::blocks(buffer.data(), 6);
  EXPECT_EQ(view.data(), buffer.data());
  EXPECT_EQ(view.block(), 6U);
  for (int i = 0; i <= 4; ++i) {
    EXPECT_EQ(view.at(i), buffer.data() + 6 * i);
    EXPECT_EQ(view.bytes(i), static_cast<std::size_t>(6 * i));
  }
  const void* const_buffer = buffer.data();
  const BlockView<const std::byte> read = Context::blocks(const_buffer, 8);
  EXPECT_EQ(read.at(2), buffer.data() + 16);
  EXPECT_EQ(Context::blocks(buffer.data(), 0).at(3), buffer.data());  // empty blocks
}

}  // namespace test_context_blocks_test
}  // namespace ragged
