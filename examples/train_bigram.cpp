// examples/train_bigram.cpp: a character-level language model in its smallest form. Each
// character of a short text predicts the next one through nn::Embedding (a learned 32-value
// vector per character) and nn::Linear (scores for every character), trained with
// CrossEntropyLoss and Adam on every (character, next character) pair of the text at once.
// The best any such model can do is the text's bigram entropy, computed here from counts; the
// run fails unless the final loss is within 0.005 nats of it. Then it writes a greedy
// continuation (always the most likely next character: a bigram model soon repeats itself,
// "the the the", which is why language models look further back). Trains on the GPU if there
// is one.
// Run as a test by tests/nn.
#include <wick/wick.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace nn = wick::nn;

namespace {

const char* kText =
    "the wick of a candle draws the melted wax up into the flame, and the flame turns it into "
    "light and heat. a tensor engine draws numbers through its kernels in the same way: the "
    "data flows in, the work is done where it is hottest, and what comes out is what was asked "
    "for. keep the wick trimmed and the flame stays steady; keep the kernels small and the "
    "numbers stay honest.";

// The mean over pairs of -log p(next | current) for the counted p: the bigram model's optimum.
double bigram_entropy(const std::vector<int64_t>& ids, int64_t vocab) {
  std::vector<double> counts(static_cast<size_t>(vocab * vocab), 0.0), totals(vocab, 0.0);
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    counts[static_cast<size_t>(ids[i] * vocab + ids[i + 1])] += 1;
    totals[static_cast<size_t>(ids[i])] += 1;
  }
  double sum = 0;
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    sum -= std::log(counts[static_cast<size_t>(ids[i] * vocab + ids[i + 1])] /
                    totals[static_cast<size_t>(ids[i])]);
  }
  return sum / static_cast<double>(ids.size() - 1);
}

}  // namespace

int main() {
  const wick::Device device = wick::cuda::is_available() ? wick::kCUDA : wick::kCPU;
  wick::manual_seed(0);
  // The alphabet, in sorted order, and the text as indices into it.
  const std::string text = kText;
  std::string alphabet = text;
  std::sort(alphabet.begin(), alphabet.end());
  alphabet.erase(std::unique(alphabet.begin(), alphabet.end()), alphabet.end());
  std::map<char, int64_t> index_of;
  for (size_t i = 0; i < alphabet.size(); ++i) index_of[alphabet[i]] = static_cast<int64_t>(i);
  std::vector<int64_t> ids;
  for (char c : text) ids.push_back(index_of[c]);
  const auto vocab = static_cast<int64_t>(alphabet.size());
  const auto pairs = static_cast<int64_t>(ids.size()) - 1;

  // Inputs: every character but the last; targets: every character but the first.
  const wick::Tensor all = wick::tensor(ids).to(device);
  const wick::Tensor inputs = all.narrow(0, 0, pairs), targets = all.narrow(0, 1, pairs);

  nn::Embedding embed(vocab, 32);
  nn::Linear head(32, vocab);
  embed->to(device);
  head->to(device);
  std::vector<wick::Tensor> parameters = embed->parameters();
  for (const wick::Tensor& p : head->parameters()) parameters.push_back(p);
  wick::optim::Adam optimizer(parameters, wick::optim::AdamOptions(0.02));
  nn::CrossEntropyLoss criterion;

  const double floor = bigram_entropy(ids, vocab);
  std::printf("%lld characters, %lld distinct; bigram entropy %.4f nats (the best possible loss)\n",
              static_cast<long long>(ids.size()), static_cast<long long>(vocab), floor);
  double loss_value = 0;
  for (int step = 1; step <= 600; ++step) {
    optimizer.zero_grad();
    wick::Tensor loss = criterion(head(embed(inputs)), targets);
    loss.backward();
    optimizer.step();
    loss_value = loss.item<double>();
    if (step == 1 || step % 100 == 0) std::printf("step %3d  loss %.4f\n", step, loss_value);
  }

  // Greedy continuation from 't': the most likely next character, 60 times.
  std::string sample = "t";
  {
    wick::NoGradGuard no_grad;
    for (int i = 0; i < 60; ++i) {
      const wick::Tensor last = wick::tensor({index_of[sample.back()]}).to(device);
      const int64_t next = wick::argmax(head(embed(last)), 1).item<int64_t>();
      sample += alphabet[static_cast<size_t>(next)];
    }
  }
  std::printf("greedy continuation: \"%s\"\n", sample.c_str());
  const double gap = loss_value - floor;
  std::printf("final loss %.4f, %.4f nats above the bigram entropy (at most 0.005 required)\n",
              loss_value, gap);
  return gap <= 0.005 ? 0 : 1;
}
