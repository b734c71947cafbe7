// examples/train_linear.cpp: a linear model trained on the GPU if there is one.
#include <wick/wick.hpp>
#include <cstdio>

struct LinearModel : wick::nn::Module {
  LinearModel(int64_t in_features, int64_t out_features)
      : linear(register_module("linear", wick::nn::Linear(in_features, out_features))) {}
  wick::Tensor forward(const wick::Tensor& x) { return linear(x); }
  wick::nn::Linear linear;
};

int main() {
  wick::Device device = wick::cuda::is_available() ? wick::kCUDA : wick::kCPU;
  LinearModel model(10, 1);
  model.to(device);
  wick::Tensor data = wick::randn({64, 10}).to(device);
  wick::Tensor target = wick::randn({64, 1}).to(device);
  wick::nn::MSELoss criterion;
  wick::optim::SGD optimizer(model.parameters(), wick::optim::SGDOptions(0.01));
  for (int epoch = 0; epoch < 2; ++epoch) {
    wick::Tensor output = model.forward(data);
    wick::Tensor loss = criterion(output, target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    std::printf("Epoch %d, loss: %.4f\n", epoch + 1, loss.item<float>());
  }
}
