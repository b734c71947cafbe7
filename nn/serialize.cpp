// serialize.cpp: the safetensors reader and writer behind wick::save / wick::load.
// Reading: the 8-byte length, the JSON header (parsed by nlohmann-json, duplicates rejected),
// then every rule of docs/nn.md ("Safetensors validation") is checked before one byte of data
// is read; data is read with pread straight into each tensor's buffer, so memory use is the
// tensors themselves and a lying header cannot make us allocate more than the file holds.
// Writing: a temporary file beside the target, written fully, fsync'ed, renamed over the target,
// then the folder is fsync'ed; any failure unlinks the temporary and throws.
// Tested in tests/nn/test_serialize.cpp (round trips, malformed files, a write cut short by
// RLIMIT_FSIZE) and tests/nn/interop.py (files exchanged with PyTorch).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"
#include "wick/serialize.hpp"

namespace wick {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host needs byte swaps here");

namespace {

using Json = nlohmann::json;
using wick::detail::fail;

const char* safetensors_dtype(Dtype dtype) {
  switch (dtype) {
    case kFloat32:
      return "F32";
    case kFloat64:
      return "F64";
    case kInt64:
      return "I64";
    case kBool:
      return "BOOL";
    case kBFloat16:
      return "BF16";
  }
  return "?";
}

// The file's dtype string as a wick Dtype; names the format knows but wick lacks are a
// DtypeError, anything else a FormatError.
Dtype parse_dtype(const std::string& name, const std::string& tensor, const std::string& where) {
  if (name == "F32") return kFloat32;
  if (name == "F64") return kFloat64;
  if (name == "I64") return kInt64;
  if (name == "BOOL") return kBool;
  if (name == "BF16") return kBFloat16;
  static constexpr std::string_view kKnownElsewhere[] = {
      "F16",     "I8",      "I16",     "I32", "U8",      "U16",     "U32", "U64",
      "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4",  "F6_E2M3", "F6_E3M2", "C64", "C128"};
  if (std::find(std::begin(kKnownElsewhere), std::end(kKnownElsewhere), name) !=
      std::end(kKnownElsewhere)) {
    fail<DtypeError>("load", where, ": tensor '", tensor, "' has dtype ", name,
                     ", which wick does not support (F32, F64, I64, BOOL, BF16)");
  }
  fail<FormatError>("load", where, ": tensor '", tensor, "' has unknown dtype \"", name, "\"");
}

std::string system_error(int err) { return std::strerror(err); }

// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now and reports close's error (it can report a failed delayed write).
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

// Reads exactly n bytes at offset; false on a short file, throws on an I/O error.
bool read_exact(int fd, void* out, uint64_t n, uint64_t offset, const std::string& path) {
  auto* dst = static_cast<char*>(out);
  while (n > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, 1u << 30));
    const ssize_t got = ::pread(fd, dst, chunk, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail<IOError>("load", path, ": read failed: ", system_error(errno));
    }
    if (got == 0) return false;
    dst += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<uint64_t>(got);
  }
  return true;
}

void write_all(int fd, const void* data, size_t n, const std::string& path) {
  const auto* src = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = ::write(fd, src, std::min<size_t>(n, 1u << 30));
    if (put < 0) {
      if (errno == EINTR) continue;
      fail<IOError>("save", path, ": write failed: ", system_error(errno));
    }
    src += put;
    n -= static_cast<size_t>(put);
  }
}

struct Entry {
  std::string name;
  Dtype dtype = kFloat32;
  Shape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct Header {
  std::vector<Entry> entries;  // in the header's key order
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // 8 + header length
};

// A JSON value as it appears in an error message: cut after 80 characters, so a hostile
// header (a 99 MB array) makes a short message, not one as large as itself.
std::string brief(const Json& value) {
  constexpr size_t kMax = 80;
  std::string text = value.dump();
  if (text.size() > kMax)
    text = text.substr(0, kMax) + "... (" + std::to_string(text.size()) + " characters)";
  return text;
}

uint64_t as_offset(const Json& value, const std::string& what, const std::string& where) {
  if (!value.is_number_unsigned()) {
    fail<FormatError>("load", where, ": ", what, " must be a non-negative integer, got ",
                      brief(value));
  }
  return value.get<uint64_t>();
}

Entry parse_entry(const std::string& name, const Json& info, const std::string& where) {
  if (!info.is_object()) {
    fail<FormatError>("load", where, ": tensor '", name, "' must be a JSON object, got ",
                      brief(info));
  }
  for (const auto& [key, value] : info.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      fail<FormatError>("load", where, ": tensor '", name, "' has unknown field \"", key, "\"");
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(key)) {
      fail<FormatError>("load", where, ": tensor '", name, "' has no \"", key, "\"");
    }
  }
  Entry e;
  e.name = name;
  const Json& dtype = info["dtype"];
  if (!dtype.is_string()) {
    fail<FormatError>("load", where, ": tensor '", name, "': dtype must be a string");
  }
  e.dtype = parse_dtype(dtype.get<std::string>(), name, where);
  const Json& shape = info["shape"];
  if (!shape.is_array() || shape.size() > static_cast<size_t>(Shape::kMaxDims)) {
    fail<FormatError>("load", where, ": tensor '", name, "': shape must be an array of at most ",
                      Shape::kMaxDims, " sizes, got ", brief(shape));
  }
  uint64_t nbytes = element_size(e.dtype);
  // The sizes other than 0 must multiply within int64 as well: a tensor's strides are made
  // from them even where a 0 makes it empty ([0, 2^63-1, 2^63-1]).
  int64_t extent = 1;
  for (const Json& dim : shape) {
    const uint64_t size = as_offset(dim, "tensor '" + name + "': a shape entry", where);
    if (size > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(nbytes, size, &nbytes) ||
        (size != 0 && __builtin_mul_overflow(extent, static_cast<int64_t>(size), &extent))) {
      fail<FormatError>("load", where, ": tensor '", name, "': shape ", brief(shape),
                        " is too large");
    }
    e.shape.push_back(static_cast<int64_t>(size));
  }
  const Json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    fail<FormatError>("load", where, ": tensor '", name,
                      "': data_offsets must be [begin, end], got ", brief(offsets));
  }
  e.begin = as_offset(offsets[0], "tensor '" + name + "': data_offsets[0]", where);
  e.end = as_offset(offsets[1], "tensor '" + name + "': data_offsets[1]", where);
  if (e.end < e.begin) {
    fail<FormatError>("load", where, ": tensor '", name, "': data_offsets ", brief(offsets),
                      " end before they begin");
  }
  if (e.end - e.begin != nbytes) {
    fail<FormatError>("load", where, ": tensor '", name, "': shape ", brief(shape), " of ",
                      safetensors_dtype(e.dtype), " needs ", nbytes, " bytes but data_offsets ",
                      brief(offsets), " span ", e.end - e.begin);
  }
  return e;
}

// Reads and validates the header of an open file of file_size bytes.
// The structure rules of a header, checked by a SAX pass (Json::sax_parse) before the text is
// parsed into a tree: the format needs 3 levels of nesting, so deeper headers are refused
// before anything recursive (dump() in messages, destruction) could run out of stack on them;
// its arrays (shape, data_offsets) hold at most Shape::kMaxDims numbers and nothing else, so
// that a header of millions of tiny arrays cannot make a tree twenty times its size; and a
// repeated key, which the tree would silently keep one value of, is recorded.
class HeaderStructure {
 public:
  explicit HeaderStructure(const std::string& where) : where_(where) {}
  std::optional<std::string> duplicate;  // the first key an object repeats

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(Json::number_integer_t) { return value(); }
  bool number_unsigned(Json::number_unsigned_t) { return value(); }
  bool number_float(Json::number_float_t, const Json::string_t&) { return value(); }
  bool string(Json::string_t&) { return value(); }
  bool binary(Json::binary_t&) { return value(); }
  bool start_object(std::size_t) {
    open(false);
    keys_.emplace_back();
    return true;
  }
  bool key(Json::string_t& name) {
    if (!keys_.back().insert(name).second && !duplicate) duplicate = name;
    return true;
  }
  bool end_object() {
    keys_.pop_back();
    in_array_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    open(true);
    array_sizes_.push_back(0);
    return true;
  }
  bool end_array() {
    array_sizes_.pop_back();
    in_array_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    fail<FormatError>("load", where_, ": the header is not valid JSON: ", e.what());
  }

 private:
  static constexpr size_t kMaxDepth = 64;
  static constexpr size_t kMaxArray = std::max<size_t>(Shape::kMaxDims, 2);
  bool inside_array() const { return !in_array_.empty() && in_array_.back(); }
  bool value() {
    if (inside_array() && ++array_sizes_.back() > kMaxArray) {
      fail<FormatError>("load", where_, ": the header has an array of more than ", kMaxArray,
                        " entries; its arrays (shape, data_offsets) hold at most ", kMaxArray);
    }
    return true;
  }
  void open(bool array) {
    if (inside_array()) {
      fail<FormatError>("load", where_, ": the header has an array holding an array or object; ",
                        "its arrays (shape, data_offsets) hold numbers only");
    }
    in_array_.push_back(array);
    if (in_array_.size() > kMaxDepth) {
      fail<FormatError>("load", where_, ": the header nests deeper than ", kMaxDepth, " levels");
    }
  }
  const std::string& where_;
  std::vector<std::set<std::string>> keys_;  // per open object
  std::vector<size_t> array_sizes_;          // per open array
  std::vector<bool> in_array_;               // per open container: is it an array?
};

Header read_header(int fd, uint64_t file_size, const std::string& where) {
  if (file_size < 8) {
    fail<FormatError>("load", where, ": the file is ", file_size,
                      " bytes, too short for the 8-byte header length");
  }
  unsigned char prefix[8];
  if (!read_exact(fd, prefix, 8, 0, where)) {
    fail<FormatError>("load", where, ": the file is too short for the 8-byte header length");
  }
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | prefix[i];
  if (header_len > kMaxSafetensorsHeaderBytes) {
    fail<FormatError>("load", where, ": header length ", header_len, " exceeds the limit of ",
                      kMaxSafetensorsHeaderBytes, " bytes");
  }
  if (header_len > file_size - 8) {
    fail<FormatError>("load", where, ": header length ", header_len, " runs past the end of the ",
                      file_size, "-byte file (truncated?)");
  }
  std::string text(header_len, '\0');
  if (!read_exact(fd, text.data(), header_len, 8, where)) {
    fail<FormatError>("load", where, ": the file ends inside its header");
  }
  if (text.empty() || text[0] != '{') {
    fail<FormatError>("load", where, ": the header must be a JSON object starting with '{'");
  }
  // JSON text has no NUL (a string escapes it as \u0000), and nlohmann's reader stops at one:
  // what followed it would be ignored.
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    fail<FormatError>("load", where, ": the header holds a NUL byte at offset ", nul);
  }
  // One linear pass over the text checks its structure before it becomes a tree (a SAX pass:
  // nlohmann's parse callback walked each finished object again, quadratic in the number of
  // tensors, so a hostile 95 MB header took hours; found by review).
  HeaderStructure structure(where);
  Json::sax_parse(text, &structure);
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::exception& e) {
    fail<FormatError>("load", where, ": the header is not valid JSON: ", e.what());
  }
  const std::optional<std::string>& duplicate = structure.duplicate;
  if (duplicate)
    fail<FormatError>("load", where, ": the header repeats the key \"", *duplicate, "\"");
  if (!root.is_object()) fail<FormatError>("load", where, ": the header must be a JSON object");

  Header header;
  header.data_start = 8 + header_len;
  for (const auto& [name, info] : root.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) {
        fail<FormatError>("load", where, ": __metadata__ must be an object of strings");
      }
      for (const auto& [key, value] : info.items()) {
        if (!value.is_string()) {
          fail<FormatError>("load", where, ": __metadata__ value of \"", key,
                            "\" must be a string, got ", brief(value));
        }
        header.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    if (name.empty()) fail<FormatError>("load", where, ": a tensor has an empty name");
    header.entries.push_back(parse_entry(name, info, where));
  }

  // The data section must be covered exactly: sorted by offset, each tensor starts where the
  // previous one ended, the first at 0 and the last at the end of the file.
  const uint64_t data_len = file_size - header.data_start;
  std::vector<const Entry*> by_offset;
  for (const Entry& e : header.entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t cursor = 0;
  const Entry* previous = nullptr;
  for (const Entry* e : by_offset) {
    if (e->end > data_len) {
      fail<FormatError>("load", where, ": tensor '", e->name, "' data_offsets [", e->begin, ", ",
                        e->end, "] run past the ", data_len, "-byte data section (truncated?)");
    }
    if (e->begin < cursor) {
      fail<FormatError>("load", where, ": tensor '", e->name, "' data_offsets [", e->begin, ", ",
                        e->end, "] overlap tensor '", previous->name, "' [", previous->begin, ", ",
                        previous->end, "]");
    }
    if (e->begin > cursor) {
      fail<FormatError>("load", where, ": bytes [", cursor, ", ", e->begin,
                        ") of the data section belong to no tensor");
    }
    cursor = e->end;
    previous = e;
  }
  if (cursor != data_len) {
    fail<FormatError>("load", where, ": the data section is ", data_len,
                      " bytes but the tensors cover ", cursor, " (trailing bytes)");
  }
  return header;
}

struct OpenFile {
  std::unique_ptr<Fd> fd;
  uint64_t size = 0;
};

OpenFile open_for_reading(const std::filesystem::path& path) {
  const std::string where = path.string();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever; a
  // regular file ignores the flag.
  const int fd = ::open(where.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail<IOError>("load", where, ": cannot open: ", system_error(errno));
  OpenFile file{std::make_unique<Fd>(fd), 0};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail<IOError>("load", where, ": cannot stat: ", system_error(errno));
  if (!S_ISREG(st.st_mode)) fail<IOError>("load", where, ": not a regular file");
  file.size = static_cast<uint64_t>(st.st_size);
  return file;
}

// A fresh name beside `path` that no other process or thread picks. The file name is cut
// where the suffix would take it past NAME_MAX (255 bytes), so that any name a user may save
// to has a temporary.
std::string temporary_name(const std::filesystem::path& path, int attempt) {
  static std::atomic<uint64_t> counter{0};
  const std::string suffix = ".tmp-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter.fetch_add(1)) + "-" + std::to_string(attempt);
  constexpr size_t kNameMax = 255;
  std::string name = path.filename().string();
  if (name.size() + suffix.size() > kNameMax) name.resize(kNameMax - suffix.size());
  return (path.parent_path() / (name + suffix)).string();
}

// Where a save writes: through a symbolic link to the file it names (as PyTorch's and
// safetensors' savers, which write the file in place), not over the link.
std::filesystem::path resolve_target(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_symlink(path, error)) return path;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(path, error);
  return error ? path : resolved;
}

}  // namespace

std::map<std::string, Tensor> load_tensors(const std::filesystem::path& path) {
  OpenFile file = open_for_reading(path);
  const std::string where = path.string();
  const Header header = read_header(file.fd->get(), file.size, where);
  std::map<std::string, Tensor> tensors;
  for (const Entry& e : header.entries) {
    Tensor t = empty(e.shape, TensorOptions(e.dtype));
    const uint64_t nbytes = e.end - e.begin;
    if (!read_exact(file.fd->get(), t.raw_data(), nbytes, header.data_start + e.begin, where)) {
      fail<FormatError>("load", where, ": the file shrank while tensor '", e.name, "' was read");
    }
    if (e.dtype == kBool) {
      const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
      for (uint64_t i = 0; i < nbytes; ++i) {
        if (bytes[i] > 1) {
          fail<FormatError>("load", where, ": tensor '", e.name, "' (BOOL) holds byte ",
                            static_cast<int>(bytes[i]), " at element ", i,
                            "; booleans must be 0 or 1");
        }
      }
    }
    tensors.emplace(e.name, std::move(t));
  }
  return tensors;
}

std::map<std::string, std::string> load_metadata(const std::filesystem::path& path) {
  OpenFile file = open_for_reading(path);
  return read_header(file.fd->get(), file.size, path.string()).metadata;
}

namespace {
// Whether s is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF):
// the JSON header can hold nothing else.
bool is_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      extra = 1, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + static_cast<size_t>(extra) >= s.size()) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if ((extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

void check_utf8(std::string_view text, const char* what, const std::string& where) {
  WICK_CHECK(is_utf8(text), ValueError, "save", where, ": ", what,
             " is not valid UTF-8 (a safetensors header is JSON text)");
}
}  // namespace

void save(const std::map<std::string, Tensor>& tensors, const std::filesystem::path& named,
          const std::map<std::string, std::string>& metadata) {
  const std::string where = named.string();
  const std::filesystem::path path = resolve_target(named);
  NoGradGuard no_grad;
  // Everything that can fail without touching the disk happens first: names, copies to the host.
  std::vector<std::pair<std::string, Tensor>> host;
  // The header's JSON text, entry by entry in this order (__metadata__ first, then the tensors
  // in name order, which is their data's order): what ordered_json's dump() gave, but built
  // in linear time (its operator[] searched the keys so far: saving 20k tensors took 0.8 s).
  std::string text = "{";
  const auto add_entry = [&text](const std::string& key, const nlohmann::ordered_json& value) {
    if (text.size() > 1) text += ',';
    text += nlohmann::ordered_json(key).dump();
    text += ':';
    text += value.dump();
  };
  for (const auto& [key, value] : metadata) {
    check_utf8(key, "a metadata key", where);
    check_utf8(value, "the metadata value of a key", where);
  }
  if (!metadata.empty()) add_entry("__metadata__", metadata);
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    check_utf8(name, "a tensor name", where);
    WICK_CHECK(!name.empty() && name != "__metadata__", ValueError, "save", where,
               ": a tensor may not be named \"", name, "\"");
    WICK_CHECK(tensor.defined(), ValueError, "save", where, ": tensor '", name, "' is undefined");
    Tensor t = tensor.detach().to(Device(kCPU)).contiguous();
    const uint64_t nbytes = t.nbytes();
    add_entry(name, {{"dtype", safetensors_dtype(t.dtype())},
                     {"shape", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                     {"data_offsets", {offset, offset + nbytes}}});
    offset += nbytes;
    host.emplace_back(name, std::move(t));
  }
  text += '}';
  text.append((8 - text.size() % 8) % 8, ' ');  // data starts 8-byte aligned, as safetensors pads
  unsigned char prefix[8];
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<unsigned char>(text.size() >> (8 * i));

  // Only a regular file is replaced: renaming over a device, FIFO or socket would swap it for a
  // regular file (saving to /dev/full as root replaced the device; found by review).
  if (struct stat target{}; ::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    fail<IOError>("save", where, ": the path exists and is not a regular file (",
                  S_ISDIR(target.st_mode) ? "a directory" : "a device, FIFO or socket",
                  "); save writes regular files only");
  }
  // A file the user may not write is not replaced, though the folder would allow the rename:
  // saving over it must fail as open(path, "wb") would (PyTorch's and safetensors' save).
  if (::faccessat(AT_FDCWD, path.c_str(), F_OK, AT_EACCESS) == 0 &&
      ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
    fail<IOError>("save", where, ": the file exists and is not writable: ", system_error(errno));
  }
  std::string temp;
  int raw_fd = -1;
  for (int attempt = 0; attempt < 100 && raw_fd < 0; ++attempt) {
    temp = temporary_name(path, attempt);
    raw_fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw_fd < 0 && errno != EEXIST) {
      fail<IOError>("save", where, ": cannot create the temporary file ", temp, ": ",
                    system_error(errno));
    }
  }
  if (raw_fd < 0) fail<IOError>("save", where, ": cannot find a free temporary file name");
  Fd fd(raw_fd);
  try {
    // A file saved over keeps its permissions (a checkpoint made private stays private).
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode) &&
        ::fchmod(fd.get(), old.st_mode & 07777) != 0) {
      fail<IOError>("save", where, ": cannot give ", temp,
                    " the mode of the file it replaces: ", system_error(errno));
    }
    write_all(fd.get(), prefix, 8, where);
    write_all(fd.get(), text.data(), text.size(), where);
    for (const auto& [name, t] : host) write_all(fd.get(), t.raw_data(), t.nbytes(), where);
    if (::fsync(fd.get()) != 0)
      fail<IOError>("save", where, ": fsync failed: ", system_error(errno));
    if (fd.close() != 0) fail<IOError>("save", where, ": close failed: ", system_error(errno));
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      fail<IOError>("save", where, ": cannot rename ", temp, " over it: ", system_error(errno));
    }
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  // Make the rename itself durable; a failure here cannot undo the save, so it is ignored.
  std::filesystem::path folder = path.parent_path();
  if (folder.empty()) folder = ".";
  const int dir_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void save(const nn::Module& module, const std::filesystem::path& path) {
  std::map<std::string, Tensor> tensors;
  for (const auto& [name, tensor] : module.named_parameters()) tensors.emplace(name, tensor);
  for (const auto& [name, tensor] : module.named_buffers()) tensors.emplace(name, tensor);
  save(tensors, path, {{"format", "pt"}});
}

void load(nn::Module& module, const std::filesystem::path& path) {
  const std::string where = path.string();
  std::map<std::string, Tensor> file = load_tensors(path);
  // The state_dict: parameters, then buffers (names cannot collide: register_* refuse that).
  std::vector<nn::NamedTensor> params = module.named_parameters();
  for (auto& named : module.named_buffers()) params.push_back(std::move(named));
  std::vector<std::string> missing, unexpected;
  std::set<std::string> known;
  for (const auto& [name, p] : params) {
    known.insert(name);
    if (file.count(name) == 0) missing.push_back(name);
  }
  for (const auto& [name, t] : file) {
    if (known.count(name) == 0) unexpected.push_back(name);
  }
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
    return out.empty() ? std::string("none") : out;
  };
  if (!missing.empty() || !unexpected.empty()) {
    fail<ValueError>("load", where, ": the file does not match the module ", module.name(),
                     ": missing ", join(missing), "; unexpected ", join(unexpected));
  }
  for (const auto& [name, p] : params) {
    const Tensor& t = file.at(name);
    WICK_CHECK(t.sizes() == p.sizes(), ShapeError, "load", where, ": '", name, "' is ", t.sizes(),
               " in the file but ", describe(p), " in the module");
    WICK_CHECK(t.dtype() == p.dtype(), DtypeError, "load", where, ": '", name, "' is ", t.dtype(),
               " in the file but ", describe(p), " in the module");
  }
  NoGradGuard no_grad;
  for (const auto& [name, p] : params) {
    Tensor target = p;
    target.copy_(file.at(name));
  }
}

}  // namespace wick
