// test_serialize.cpp: safetensors save/load. Bit-exact round trips (NaN payloads, -0, infinities,
// denormals, int64 extremes, bool, 0-dim, empty and strided tensors), the file layout, module
// save/load and its mismatch errors, atomic writes (a save cut short by RLIMIT_FSIZE, or
// rejected before writing, leaves the old file and no temporary), and malformed files: each rule
// of docs/nn.md, every truncation of a valid file and random byte corruptions must give a
// wick::Error, never a crash or another exception.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <wick/wick.hpp>

namespace fs = std::filesystem;
namespace nn = wick::nn;
using wick::Tensor;

namespace {

// A fresh folder per test case, removed afterwards.
struct TempDir {
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("wick_serialize_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path operator/(const std::string& name) const { return path / name; }
  fs::path path;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

// A safetensors file from a header text and a data section.
std::string make_file(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

// Loading `bytes` must throw ErrorKind whose message contains `text`.
template <typename ErrorKind>
void expect_rejected(const TempDir& dir, const std::string& bytes, const std::string& text) {
  const fs::path p = dir / "bad.safetensors";
  write_file(p, bytes);
  INFO("expecting \"" << text << "\"");
  CHECK_THROWS_AS(wick::load_tensors(p), ErrorKind);
  CHECK_THROWS_WITH(wick::load_tensors(p), Catch::Contains(text));
}

struct Net : nn::Module {
  Net()
      : fc(register_module("fc", nn::Linear(3, 2))),
        out(register_module("out", nn::Linear(2, 1))) {}
  nn::Linear fc, out;
};

}  // namespace

TEST_CASE("round trips are bit-exact for every dtype and odd values") {
  TempDir dir;
  std::vector<float> f32 = {0.0f,
                            -0.0f,
                            1.5f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(),
                            std::bit_cast<float>(0x7fc12345u),
                            std::bit_cast<float>(0xffa00001u)};
  std::vector<double> f64 = {-0.0, 1e-310, std::bit_cast<double>(0x7ff8dead0000beefull),
                             std::numeric_limits<double>::lowest(), 3.141592653589793};
  std::vector<int64_t> i64 = {std::numeric_limits<int64_t>::min(), -1, 0,
                              std::numeric_limits<int64_t>::max()};
  wick::manual_seed(5);
  std::map<std::string, Tensor> tensors = {
      {"f32", wick::tensor(f32, wick::Shape{3, 3})},
      {"f64", wick::tensor(f64)},
      {"i64", wick::tensor(i64, wick::Shape{2, 1, 2})},
      {"bool", wick::tensor(std::vector<bool>{true, false, true})},
      {"scalar", wick::scalar_tensor(2.5)},
      {"empty", wick::zeros({0, 3})},
      {"strided", wick::randn({40, 30}).t()},  // saved in logical (row-major) order
      {"big", wick::randn({300, 200}, wick::kFloat64)},
      {"name with spaces/and.dots", wick::ones({1})},
      {"bf16", wick::tensor(std::vector<wick::BFloat16>{
                   wick::BFloat16::from_bits(0x3f80), wick::BFloat16::from_bits(0x8000),
                   wick::BFloat16::from_bits(0x7fc1), wick::BFloat16::from_bits(0xff80),
                   wick::BFloat16::from_bits(0x0001), wick::BFloat16::from_bits(0x7f7f)})},
  };
  REQUIRE(std::bit_cast<uint32_t>(tensors["f32"].to_vector<float>()[7]) == 0x7fc12345u);
  wick::save(tensors, dir / "all.safetensors", {{"note", "round trip"}});
  auto loaded = wick::load_tensors(dir / "all.safetensors");
  REQUIRE(loaded.size() == tensors.size());
  for (const auto& [name, t] : tensors) {
    INFO(name);
    REQUIRE(loaded.count(name) == 1);
    CHECK(same_bits(loaded[name], t));
    CHECK(loaded[name].is_contiguous());
  }
  CHECK(loaded["scalar"].dim() == 0);
  CHECK(wick::load_metadata(dir / "all.safetensors") ==
        std::map<std::string, std::string>{{"note", "round trip"}});
  // Saving what was loaded gives the same bytes.
  wick::save(loaded, dir / "again.safetensors", {{"note", "round trip"}});
  CHECK(read_file(dir / "all.safetensors") == read_file(dir / "again.safetensors"));
}

TEST_CASE("the file layout is standard safetensors") {
  TempDir dir;
  wick::save({{"b", wick::tensor({1.0f, 2.0f})}, {"a", wick::tensor(std::vector<int64_t>{7})}},
             dir / "x.safetensors");
  const std::string bytes = read_file(dir / "x.safetensors");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  CHECK((8 + n) % 8 == 0);  // data starts 8-byte aligned
  const std::string header = bytes.substr(8, n);
  CHECK(header.front() == '{');
  CHECK(header.find("\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}") !=
        std::string::npos);
  CHECK(header.find("\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}") !=
        std::string::npos);
  CHECK(bytes.size() == 8 + n + 16);
  int64_t seven = 0;
  std::memcpy(&seven, bytes.data() + 8 + n, 8);
  CHECK(seven == 7);
  CHECK(wick::load_metadata(dir / "x.safetensors").empty());
}

TEST_CASE("modules save their named parameters and load them back in place") {
  TempDir dir;
  wick::manual_seed(1);
  Net a;
  wick::save(a, dir / "net.safetensors");
  const auto file = wick::load_tensors(dir / "net.safetensors");
  CHECK(file.size() == 4);
  CHECK(file.count("fc.weight") == 1);
  CHECK(wick::load_metadata(dir / "net.safetensors").at("format") == "pt");
  wick::manual_seed(2);
  Net b;
  Tensor handle = b.fc->weight;
  REQUIRE_FALSE(wick::equal(a.fc->weight, b.fc->weight));
  wick::load(b, dir / "net.safetensors");
  for (size_t i = 0; i < 4; ++i) CHECK(same_bits(a.parameters()[i], b.parameters()[i]));
  CHECK(handle.is_same(b.fc->weight));  // in place
  CHECK(b.fc->weight.requires_grad());

  // Holders save and load too.
  nn::Linear lin(3, 2);
  wick::save(lin, dir / "lin.safetensors");
  nn::Linear lin2(3, 2);
  wick::load(lin2, dir / "lin.safetensors");
  CHECK(wick::equal(lin->weight, lin2->weight));
  // A float64 module reads a float64 file.
  b.to(wick::kFloat64);
  wick::save(b, dir / "net64.safetensors");
  CHECK(wick::load_tensors(dir / "net64.safetensors").at("out.bias").dtype() == wick::kFloat64);
}

TEST_CASE("modules save and load their buffers with the parameters") {
  TempDir dir;
  struct WithBuffers : nn::Module {
    WithBuffers() {
      w = register_parameter("w", wick::randn({3}));
      running = register_buffer("running", wick::randn({3}, wick::kFloat64));
      count = register_buffer("count", wick::full({}, 7, wick::kInt64));
    }
    Tensor w, running, count;
  };
  wick::manual_seed(3);
  WithBuffers a;
  wick::save(a, dir / "b.safetensors");
  const auto file = wick::load_tensors(dir / "b.safetensors");
  CHECK(file.size() == 3);
  CHECK(file.count("running") == 1);
  wick::manual_seed(4);
  WithBuffers b;
  b.count.fill_(0);
  Tensor handle = b.running;
  wick::load(b, dir / "b.safetensors");
  CHECK(same_bits(a.running, b.running));
  CHECK(handle.is_same(b.running));
  CHECK(b.count.item<int64_t>() == 7);
  // A file without the buffers (parameters only) does not match.
  wick::save(std::map<std::string, Tensor>{{"w", a.w}}, dir / "params.safetensors");
  CHECK_THROWS_WITH(wick::load(b, dir / "params.safetensors"),
                    Catch::Contains("missing 'running', 'count'"));
  // The loss's class weights are a buffer too.
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(wick::tensor({1.0f, 3.0f})));
  wick::save(ce, dir / "ce.safetensors");
  CHECK(wick::load_tensors(dir / "ce.safetensors").at("weight").to_vector<float>() ==
        std::vector<float>{1.0f, 3.0f});
}

TEST_CASE("loading into a module of another structure fails and changes nothing") {
  TempDir dir;
  Net net;
  wick::save(net, dir / "net.safetensors");
  Net other;
  const auto before = other.fc->weight.to_vector<float>();

  nn::Linear wrong(3, 2);  // names weight/bias, not fc.weight ...
  CHECK_THROWS_WITH(
      wick::load(wrong, dir / "net.safetensors"),
      Catch::Contains("missing 'weight', 'bias'") && Catch::Contains("unexpected 'fc.bias'"));
  auto tensors = wick::load_tensors(dir / "net.safetensors");
  tensors["fc.weight"] = wick::zeros({2, 4});
  wick::save(tensors, dir / "shape.safetensors");
  CHECK_THROWS_AS(wick::load(other, dir / "shape.safetensors"), wick::ShapeError);
  tensors["fc.weight"] = wick::zeros({2, 3}, wick::kFloat64);
  wick::save(tensors, dir / "dtype.safetensors");
  CHECK_THROWS_AS(wick::load(other, dir / "dtype.safetensors"), wick::DtypeError);
  tensors.erase("fc.weight");
  wick::save(tensors, dir / "missing.safetensors");
  CHECK_THROWS_AS(wick::load(other, dir / "missing.safetensors"), wick::ValueError);
  CHECK(other.fc->weight.to_vector<float>() == before);
  CHECK_THROWS_AS(wick::load(other, dir / "no such file"), wick::IOError);
}

TEST_CASE("a failed save leaves the old file and no temporary behind") {
  TempDir dir;
  const fs::path target = dir / "model.safetensors";
  wick::save({{"w", wick::ones({4})}}, target);
  const std::string old_bytes = read_file(target);
  auto only_target_left = [&] {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir.path)) {
      ++files;
      CHECK(entry.path() == target);
    }
    return files == 1;
  };

  // Rejected before writing.
  CHECK_THROWS_AS(wick::save({{"__metadata__", wick::ones({1})}}, target), wick::ValueError);
  CHECK_THROWS_AS(wick::save({{"", wick::ones({1})}}, target), wick::ValueError);
  CHECK_THROWS_AS(wick::save({{"u", Tensor()}}, target), wick::ValueError);
  // Names and metadata the JSON header can't hold (found by review: nlohmann's type_error
  // escaped, not a wick::Error): invalid UTF-8, each kind of malformed sequence.
  for (const std::string bad :
       {"w\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xe2\x82"}) {
    CHECK_THROWS_AS(wick::save({{bad, wick::ones({1})}}, target), wick::ValueError);
    CHECK_THROWS_AS(wick::save({{"w", wick::ones({1})}}, target, {{"k", bad}}), wick::ValueError);
    CHECK_THROWS_AS(wick::save({{"w", wick::ones({1})}}, target, {{bad, "v"}}), wick::ValueError);
  }
  CHECK(read_file(target) == old_bytes);
  CHECK(only_target_left());
  // Valid UTF-8 of every length is kept: é, €, 𝄞.
  const fs::path named = dir / "named.safetensors";
  wick::save({{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e", wick::ones({1})}}, named);
  CHECK(wick::load_tensors(named).count("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e") == 1);
  fs::remove(named);

  // Cut short while writing: the file-size limit makes write() fail with EFBIG midway.
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto* previous = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  bool threw_io_error = false;
  std::string message;
  try {
    wick::save({{"w", wick::zeros({1 << 20})}}, target);  // 4 MiB
  } catch (const wick::IOError& e) {
    threw_io_error = true;
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, previous);
  CHECK(threw_io_error);
  CHECK_THAT(message, Catch::Contains("write failed"));
  CHECK(read_file(target) == old_bytes);
  CHECK(only_target_left());

  // No folder to write into.
  CHECK_THROWS_AS(wick::save({{"w", wick::ones({1})}}, dir / "missing" / "x.safetensors"),
                  wick::IOError);
  // A path that is not a regular file (a FIFO here; /dev/full as root was replaced by a file,
  // found by review) is refused and left as it was.
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(wick::save({{"w", wick::ones({1})}}, fifo),
                    Catch::Contains("not a regular file"));
  CHECK(fs::is_fifo(fifo));
  fs::remove(fifo);
  // And a successful save replaces the file.
  wick::save({{"w", wick::zeros({2})}}, target);
  CHECK(wick::load_tensors(target).at("w").numel() == 2);
  CHECK(only_target_left());
}

// Found by review: saving over a file made it 0644 whatever it was, replaced a symbolic link
// by a file (leaving the linked file stale), and failed for names within 20 bytes of NAME_MAX
// (the temporary's suffix took the name past 255 bytes).
TEST_CASE("many tensors: the header is written and read entry by entry, in name order") {
  // Built and parsed in linear time (found by review: quadratic in the entry count, a hostile
  // header of 1.6M entries would have taken hours); the layout is ordered_json's dump() of
  // before: __metadata__ first, then the names in order, offsets increasing.
  TempDir dir;
  const fs::path target = dir / "many.safetensors";
  std::map<std::string, Tensor> many;
  for (int i = 0; i < 3000; ++i) many["t" + std::to_string(i)] = wick::full({1}, i, wick::kInt64);
  wick::save(many, target, {{"format", "pt"}});
  const std::string bytes = read_file(target);
  CHECK(bytes.substr(8, 36) == "{\"__metadata__\":{\"format\":\"pt\"},\"t0\"");
  const auto loaded = wick::load_tensors(target);
  REQUIRE(loaded.size() == many.size());
  for (const auto& [name, t] : many) CHECK(wick::equal(loaded.at(name), t));
}

TEST_CASE("saving over a file keeps its mode, writes through a link, takes any name length") {
  TempDir dir;
  const fs::path target = dir / "private.safetensors";
  wick::save({{"w", wick::ones({2})}}, target);
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  wick::save({{"w", wick::zeros({3})}}, target);
  CHECK(fs::status(target).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(wick::load_tensors(target).at("w").numel() == 3);

  const fs::path link = dir / "link.safetensors";
  fs::create_symlink(target, link);
  wick::save({{"w", wick::zeros({4})}}, link);
  CHECK(fs::is_symlink(link));
  CHECK(wick::load_tensors(target).at("w").numel() == 4);
  CHECK(fs::status(target).permissions() == (fs::perms::owner_read | fs::perms::owner_write));

  const fs::path longest = dir / std::string(255, 'a');
  wick::save({{"w", wick::ones({5})}}, longest);
  CHECK(wick::load_tensors(longest).at("w").numel() == 5);
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path)) ++files;
  CHECK(files == 3);  // no temporary left
}

TEST_CASE("a file or folder the user may not write is not replaced") {
  // Checked in a child process that drops root (the tests may run as root, whom permissions do
  // not stop): saving over a read-only file, into a read-only folder, or a new file there, must
  // be an IOError that leaves every old file and no temporary.
  TempDir dir;
  const fs::path ro_file = dir / "ro.safetensors";
  const fs::path ro_dir = dir / "ro_dir";
  wick::save({{"w", wick::ones({4})}}, ro_file);
  fs::create_directory(ro_dir);
  wick::save({{"w", wick::ones({4})}}, ro_dir / "m.safetensors");
  const std::string old_file = read_file(ro_file);
  const std::string old_in_dir = read_file(ro_dir / "m.safetensors");
  REQUIRE(::chmod(dir.path.c_str(), 0777) == 0);  // only the file's own mode stops the save
  REQUIRE(::chmod(ro_file.c_str(), 0444) == 0);
  REQUIRE(::chmod(ro_dir.c_str(), 0555) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int failures = 0;
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(100);
    auto expect_io_error = [&](const fs::path& path, int bit, const char* phrase) {
      try {
        wick::save({{"w", wick::zeros({4})}}, path);
        failures |= bit;
      } catch (const wick::IOError& e) {
        if (std::string(e.what()).find(phrase) == std::string::npos) failures |= bit;
      } catch (...) {
        failures |= bit;
      }
    };
    expect_io_error(ro_file, 1, "is not writable");
    expect_io_error(ro_dir / "m.safetensors", 2, "is not writable");
    expect_io_error(ro_dir / "new.safetensors", 4, "cannot create the temporary file");
    try {  // the same user can save where it may write
      wick::save({{"w", wick::zeros({4})}}, dir / "allowed.safetensors");
    } catch (...) {
      failures |= 8;
    }
    ::_exit(failures);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // a bit per failed expectation; 100: could not drop root
  CHECK(read_file(ro_file) == old_file);
  CHECK(read_file(ro_dir / "m.safetensors") == old_in_dir);
  CHECK(fs::exists(dir / "allowed.safetensors"));
  int in_dir = 0, in_ro_dir = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++in_dir;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(ro_dir)) ++in_ro_dir;
  CHECK(in_dir == 3);  // ro.safetensors, ro_dir, allowed.safetensors: no temporary
  CHECK(in_ro_dir == 1);
  REQUIRE(::chmod(ro_dir.c_str(), 0755) == 0);  // so that TempDir can remove it
}

TEST_CASE("malformed files are rejected with clear errors") {
  TempDir dir;
  const std::string f32x2 = std::string(8, '\0');
  auto one = [](const std::string& dtype, const std::string& shape, const std::string& offsets) {
    return "{\"t\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
           ",\"data_offsets\":" + offsets + "}}";
  };
  expect_rejected<wick::FormatError>(dir, "", "too short");
  expect_rejected<wick::FormatError>(dir, "\x05\0\0", "too short");
  expect_rejected<wick::FormatError>(dir, le64(uint64_t{1} << 63) + "{}", "exceeds the limit");
  expect_rejected<wick::FormatError>(dir, le64(200'000'000) + "{}", "exceeds the limit");
  expect_rejected<wick::FormatError>(dir, le64(64) + "{}", "runs past the end");
  expect_rejected<wick::FormatError>(dir, make_file("{\"t\": {\"dtype\": ", ""), "not valid JSON");
  expect_rejected<wick::FormatError>(dir, make_file("[1, 2]", ""), "starting with '{'");
  expect_rejected<wick::FormatError>(dir, make_file("{} x", ""), "not valid JSON");
  expect_rejected<wick::FormatError>(dir, make_file("{\"t\": 3}", ""), "must be a JSON object");
  expect_rejected<wick::FormatError>(dir, make_file(one("F33", "[2]", "[0,8]"), f32x2),
                                     "unknown dtype \"F33\"");
  expect_rejected<wick::DtypeError>(dir, make_file(one("F16", "[4]", "[0,8]"), f32x2),
                                    "does not support");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[3]", "[0,8]"), f32x2),
                                     "needs 12 bytes but data_offsets [0,8] span 8");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[2]", "[0,12]"), f32x2),
                                     "needs 8 bytes");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[2]", "[8,0]"), f32x2),
                                     "end before they begin");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[2]", "[-1,7]"), f32x2),
                                     "non-negative integer");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[2.0]", "[0,8]"), f32x2),
                                     "non-negative integer");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "2", "[0,8]"), f32x2),
                                     "shape must be an array");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[2]", "[0]"), f32x2),
                                     "must be [begin, end]");
  expect_rejected<wick::FormatError>(
      dir, make_file(one("F32", "[4611686018427387904, 4611686018427387904]", "[0,8]"), f32x2),
      "too large");
  expect_rejected<wick::FormatError>(
      dir, make_file(one("F32", "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", "[0,4]"), "abcd"),
      "at most 16");
  expect_rejected<wick::FormatError>(
      dir, make_file("{\"t\":{\"dtype\":\"F32\",\"shape\":[2]}}", f32x2), "no \"data_offsets\"");
  expect_rejected<wick::FormatError>(
      dir,
      make_file("{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", f32x2),
      "unknown field \"x\"");
  expect_rejected<wick::FormatError>(
      dir,
      make_file("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                std::string(12, '\0')),
      "overlap tensor 'a'");
  expect_rejected<wick::FormatError>(
      dir,
      make_file("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
                std::string(12, '\0')),
      "belong to no tensor");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[2]", "[0,8]"), f32x2 + "xy"),
                                     "trailing bytes");
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[2]", "[0,8]"), "abcd"),
                                     "run past");
  expect_rejected<wick::FormatError>(
      dir,
      make_file("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                "\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                "abcd"),
      "repeats the key \"t\"");
  expect_rejected<wick::FormatError>(dir, make_file("{\"__metadata__\":{\"a\":1}}", ""),
                                     "must be a string");
  expect_rejected<wick::FormatError>(
      dir, make_file(one("BOOL", "[3]", "[0,3]"), std::string("\x01\x00\x02", 3)),
      "booleans must be 0 or 1");
  // Found by review: nlohmann's reader stops at a NUL, which hid what followed it.
  expect_rejected<wick::FormatError>(
      dir, make_file(one("F32", "[2]", "[0,8]") + std::string(1, '\0') + "GARBAGE{}", f32x2),
      "NUL byte");
  // Sizes past a 0 must still make strides within int64 (they gave an unnamed ShapeError).
  expect_rejected<wick::FormatError>(
      dir, make_file(one("F32", "[0, 9223372036854775807, 9223372036854775807]", "[0,0]"), ""),
      "too large");
  // Arrays hold numbers only, at most 16: rejected while parsing, so a header of millions of
  // tiny arrays never becomes a parsed tree many times its size (found by review: a 99 MB
  // header took 2.3 GB and made a 99 MB message).
  expect_rejected<wick::FormatError>(dir, make_file(one("F32", "[[2]]", "[0,8]"), f32x2),
                                     "hold numbers only");
  expect_rejected<wick::FormatError>(dir, make_file("{\"a\":[" + std::string("[],") + "[]]}", ""),
                                     "hold numbers only");
  {
    // A huge value in a message is cut short.
    const std::string long_value = "\"" + std::string(100000, 'x') + "\"";
    write_file(dir / "long.safetensors", make_file(one("F32", "[2]", long_value), f32x2));
    std::string message;
    try {
      wick::load_tensors(dir / "long.safetensors");
    } catch (const wick::FormatError& e) {
      message = e.what();
    }
    CHECK_THAT(message,
               Catch::Contains("must be [begin, end]") && Catch::Contains("(100002 characters)"));
    CHECK(message.size() < 400);
  }
  CHECK_THROWS_AS(wick::load_tensors(dir / "absent.safetensors"), wick::IOError);
  CHECK_THROWS_AS(wick::load_tensors(dir.path), wick::IOError);  // a folder
  // A FIFO is not a regular file; opening it waited for a writer forever (found by review).
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(wick::load_tensors(dir / "fifo"), Catch::Contains("not a regular file"));

  // Valid edge cases load: an empty header, padding spaces, zero-sized tensors.
  write_file(dir / "empty.safetensors", make_file("{}      ", ""));
  CHECK(wick::load_tensors(dir / "empty.safetensors").empty());
  write_file(dir / "zero.safetensors",
             make_file("{\"z\":{\"dtype\":\"I64\",\"shape\":[0,5],\"data_offsets\":[0,0]}}", ""));
  CHECK(wick::load_tensors(dir / "zero.safetensors").at("z").sizes() == std::vector<int64_t>{0, 5});
}

TEST_CASE("every truncation and random corruption of a valid file gives a wick::Error") {
  TempDir dir;
  wick::save({{"a", wick::randn({3, 2})},
              {"b", wick::tensor(std::vector<bool>{true, false})},
              {"c", wick::tensor(std::vector<int64_t>{1, 2, 3})}},
             dir / "good.safetensors", {{"k", "v"}});
  const std::string good = read_file(dir / "good.safetensors");
  const fs::path p = dir / "cut.safetensors";
  for (size_t len = 0; len < good.size(); ++len) {
    write_file(p, good.substr(0, len));
    INFO("truncated to " << len << " of " << good.size() << " bytes");
    CHECK_THROWS_AS(wick::load_tensors(p), wick::Error);
  }
  std::mt19937 rng(1234);
  int rejected = 0, accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      // Corrupt the header mostly: that is where parsing happens.
      const size_t at =
          rng() % 4 != 0 ? rng() % std::min<size_t>(bad.size(), 8 + 200) : rng() % bad.size();
      bad[at] = static_cast<char>(rng() % 256);
    }
    write_file(p, bad);
    try {
      wick::load_tensors(p);
      ++accepted;  // e.g. a flipped data byte of a float tensor is still a valid file
    } catch (const wick::Error&) {
      ++rejected;
    }
  }
  CHECK(rejected > 1000);
  CHECK(rejected + accepted == 3000);
}
