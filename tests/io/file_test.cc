#include "io/file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

#include "tests/testdata.h"

namespace mallat::io {
namespace {

namespace fs = std::filesystem;

TEST(File, WriteThenReadGivesTheBytesAndLeavesNoTemporaryFile) {
  const fs::path dir = testing::make_temp_dir("io-file");
  const std::vector<uint8_t> bytes = {0, 1, 2, 250, 255, 7};
  ASSERT_TRUE(write_file_atomically(dir / "a.bin", bytes).ok());
  Result<std::vector<uint8_t>> back = read_file(dir / "a.bin");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, bytes);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  // Overwriting replaces the whole content.
  ASSERT_TRUE(write_file_atomically(dir / "a.bin", std::vector<uint8_t>{9}).ok());
  EXPECT_EQ(*read_file(dir / "a.bin"), std::vector<uint8_t>{9});
  fs::remove_all(dir);
}

// Durable writes (--fsync) flush what the writeback start and fsync see;
// the file is the same either way, and a failure leaves nothing in both.
TEST(File, DurableAndPlainWritesGiveTheSameFile) {
  const fs::path dir = testing::make_temp_dir("io-file-durable");
  std::vector<uint8_t> bytes(9u << 20);  // past the 4 MiB at which writeback is started
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 24);
  EXPECT_FALSE(durable_writes());  // the default
  for (const bool durable : {true, false}) {
    set_durable_writes(durable);
    EXPECT_EQ(durable_writes(), durable);
    const fs::path file = dir / (durable ? "d.bin" : "p.bin");
    ASSERT_TRUE(write_file_atomically(file, [&](const ByteSink& sink) {
      for (size_t at = 0; at < bytes.size(); at += 3u << 20) {
        MALLAT_RETURN_IF_ERROR(sink(std::span<const uint8_t>(bytes).subspan(at, std::min<size_t>(3u << 20, bytes.size() - at))));
      }
      return Status::Ok();
    }).ok());
    EXPECT_EQ(*read_file(file), bytes);
    EXPECT_FALSE(write_file_atomically(dir / "absent" / "x.bin", bytes).ok());
  }
  set_durable_writes(false);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
  fs::remove_all(dir);
}

TEST(File, ReadErrorsNameTheFile) {
  const fs::path dir = testing::make_temp_dir("io-file-err");
  Result<std::vector<uint8_t>> missing = read_file(dir / "absent.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("absent.bin"), std::string::npos);
  Result<std::vector<uint8_t>> folder = read_file(dir);
  ASSERT_FALSE(folder.ok());
  std::ofstream(dir / "big.bin") << "0123456789";
  Result<std::vector<uint8_t>> big = read_file(dir / "big.bin", 9);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceLimit);
  EXPECT_NE(big.status().message().find("big.bin"), std::string::npos);
  EXPECT_TRUE(read_file(dir / "big.bin", 10).ok());
  fs::remove_all(dir);
}

TEST(File, FailedWriteLeavesNothing) {
  const fs::path dir = testing::make_temp_dir("io-file-fail");
  // The target's folder does not exist: the temporary file cannot be made.
  Status s = write_file_atomically(dir / "no-such-folder" / "x.bin", std::vector<uint8_t>{1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("x.bin"), std::string::npos);
  // The target is a non-empty folder: the rename fails, and the temporary file is removed.
  fs::create_directories(dir / "target.bin" / "inside");
  s = write_file_atomically(dir / "target.bin", std::vector<uint8_t>{1});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(File, WriteInPiecesGivesTheConcatenation) {
  const fs::path dir = testing::make_temp_dir("io-file-pieces");
  std::vector<uint8_t> expected;
  Status s = write_file_atomically(dir / "p.bin", [&](const ByteSink& sink) {
    // Enough pieces to pass the point where their disk write is started.
    for (int i = 0; i < 40; ++i) {
      const std::vector<uint8_t> piece(static_cast<size_t>(300000 + i), static_cast<uint8_t>(i));
      expected.insert(expected.end(), piece.begin(), piece.end());
      MALLAT_RETURN_IF_ERROR(sink(piece));
    }
    return sink({});
  });
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(*read_file(dir / "p.bin"), expected);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

// Small pieces are gathered before they are written, pieces of 128 KiB or
// more go out as they are: mixed, in any order, the file is their
// concatenation.
TEST(File, SmallAndLargePiecesMixedGiveTheConcatenation) {
  const fs::path dir = testing::make_temp_dir("io-file-mixed");
  std::vector<uint8_t> expected;
  Status s = write_file_atomically(dir / "m.bin", [&](const ByteSink& sink) {
    for (size_t size : {size_t{1}, size_t{1500}, size_t{3} << 20, size_t{7}, size_t{1} << 20, size_t{900000},
                        size_t{200000}, size_t{0}, size_t{33}, size_t{1} << 17, size_t{5}, (size_t{1} << 17) - 1}) {
      std::vector<uint8_t> piece(size);
      for (size_t i = 0; i < size; ++i) piece[i] = static_cast<uint8_t>(i * 7 + expected.size());
      expected.insert(expected.end(), piece.begin(), piece.end());
      MALLAT_RETURN_IF_ERROR(sink(piece));
    }
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(*read_file(dir / "m.bin"), expected);
  fs::remove_all(dir);
}

// A size hint allocates ahead and changes no byte: a file smaller or larger
// than its hint holds what was written, no more.
TEST(File, SizeHintsLeaveTheBytesWritten) {
  const fs::path dir = testing::make_temp_dir("io-file-hint");
  for (uint64_t hint : {uint64_t{0}, uint64_t{10}, uint64_t{1000}, uint64_t{1} << 20}) {
    const std::vector<uint8_t> bytes(1000, 0x5a);
    Status s = write_file_atomically(dir / "h.bin", [&](const ByteSink& sink, const SizeHint& reserve) {
      reserve(hint);
      return sink(bytes);
    });
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_EQ(fs::file_size(dir / "h.bin"), 1000u) << "hint " << hint;
    EXPECT_EQ(*read_file(dir / "h.bin"), bytes) << "hint " << hint;
  }
  fs::remove_all(dir);
}

TEST(File, FailedProducerLeavesNothingAndReturnsItsError) {
  const fs::path dir = testing::make_temp_dir("io-file-producer");
  std::ofstream(dir / "old.bin") << "old";
  Status s = write_file_atomically(dir / "old.bin", [](const ByteSink& sink) {
    MALLAT_RETURN_IF_ERROR(sink(std::vector<uint8_t>(1000, 1)));
    return invalid_argument("no more");
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "no more");
  // The target keeps its old content and no temporary file is left.
  EXPECT_EQ(*read_file(dir / "old.bin"), (std::vector<uint8_t>{'o', 'l', 'd'}));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat::io
