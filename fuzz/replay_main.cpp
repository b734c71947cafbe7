// replay_main.cpp: a main() for the fuzz targets where libFuzzer is not used (gcc builds,
// and the corpus-replay tests): runs LLVMFuzzerTestOneInput once on every file named on the
// command line, or on every file in a named folder (sorted, so runs are repeatable). A crash
// or abort in a target ends the process, which fails the test. Prints how many inputs ran.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t runs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (argv[i][0] == '-') continue;  // libFuzzer flags (-runs=0 ...) are accepted and ignored
    if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        run_file(f);
        ++runs;
      }
    } else {
      run_file(arg);
      ++runs;
    }
  }
  std::printf("replay: %zu input(s) ran without a failure\n", runs);
  return 0;
}
