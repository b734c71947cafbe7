// test_regress_serialize.cpp: regressions for the safetensors reader (nn/serialize.cpp) found
// while fuzzing it (fuzz/fuzz_safetensors.cpp). docs/reliability.md lists the proposed fixes.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "wick/wick.hpp"

namespace {

// Writes a safetensors file with this JSON header and no data; returns its path.
std::filesystem::path write_file(const std::string& name, const std::string& header) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("wick-regress-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream out(path, std::ios::binary);
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xFF));
  out << header;
  return path;
}

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("deeply nested JSON in a safetensors header", "[regress][serialize]") {
  // nn/serialize.cpp builds its error messages with Json::dump() (parse_entry: info.dump(),
  // shape.dump(); as_offset: value.dump(); __metadata__: value.dump()), which recurses once
  // per nesting level: a 2 MB header of nested arrays overflows the stack (ASan:
  // stack-overflow in nlohmann::detail::serializer::dump) instead of giving a FormatError.
  // The format needs 3 levels; PyTorch's reader (serde_json) stops at 128.
  const size_t depth = 1'000'000;
  for (const auto& [name, header] :
       {std::pair<std::string, std::string>{"info", "{\"a\":" + nested(depth) + "}"},
        {"shape",
         "{\"a\":{\"dtype\":\"F32\",\"shape\":[" + nested(depth) + "],\"data_offsets\":[0,4]}}"},
        {"metadata", "{\"__metadata__\":{\"k\":" + nested(depth) + "}}"}}) {
    const std::filesystem::path path = write_file(name, header);
    CHECK_THROWS_AS(wick::load_tensors(path), wick::FormatError);
    CHECK_THROWS_AS(wick::load_metadata(path), wick::FormatError);
    std::filesystem::remove(path);
  }
}
