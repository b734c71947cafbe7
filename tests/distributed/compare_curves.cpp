// compare_curves.cpp: compares the loss curves of two train_ddp runs (the "epoch N  loss X"
// lines of two output files): same epochs, and |a - b| <= RTOL x |a| for every loss. Prints the
// largest relative difference. Used by check_train_ddp.cmake.
//   compare_curves ONE_PROCESS.txt N_PROCESSES.txt RTOL
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<double> losses(const char* path) {
  std::ifstream in(path);
  std::vector<double> values;
  std::string line;
  while (std::getline(in, line)) {
    int epoch = 0;
    double loss = 0;
    if (std::sscanf(line.c_str(), "epoch %d loss %lf", &epoch, &loss) == 2) values.push_back(loss);
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s ONE.txt MANY.txt RTOL\n", argv[0]);
    return 2;
  }
  const std::vector<double> a = losses(argv[1]), b = losses(argv[2]);
  const double rtol = std::atof(argv[3]);
  if (a.empty() || a.size() != b.size()) {
    std::printf("FAIL: %zu and %zu epochs\n", a.size(), b.size());
    return 1;
  }
  double worst = 0;
  size_t worst_epoch = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double rel = std::abs(a[i] - b[i]) / std::abs(a[i]);
    if (rel > worst) {
      worst = rel;
      worst_epoch = i + 1;
    }
  }
  std::printf(
      "%zu epochs; largest relative difference of the loss %.3g (epoch %zu: %.6f vs "
      "%.6f); tolerance %.3g\n",
      a.size(), worst, worst_epoch, worst_epoch ? a[worst_epoch - 1] : 0.0,
      worst_epoch ? b[worst_epoch - 1] : 0.0, rtol);
  std::printf("%s\n", worst <= rtol ? "PASS" : "FAIL");
  return worst <= rtol ? 0 : 1;
}
