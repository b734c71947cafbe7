#!/usr/bin/python3
"""make_golden.py: writes the PyTorch golden files that tests/nn/test_parity.cpp compares wick
against. Run with Debian's python3-torch (1.13):  /usr/bin/python3 tests/golden/make_golden.py

For float32 and float64 (parity_float32.safetensors, parity_float64.safetensors):
  model   Sequential(Linear(4, 8), Tanh(), Linear(8, 8), ReLU(), Linear(8, 3)), PyTorch's init
  data    x [16, 4] ~ N(0, 1), y [16] classes in [0, 3), t [16, 3] ~ U(0, 1)
  loss    cross_entropy(model(x), y) + 0.5 * mse_loss(sigmoid(model(x)), t)
  then for each optimizer configuration below, from the same initial weights, 10 steps of
  zero_grad(set_to_none=True), forward, backward, step (with "halve_lr_after" set, the learning
  rate is halved after that many steps: set_lr in wick). Stored tensors:
    init.<param>, x, y, t                        the shared starting point
    <config>.losses [10]                          the loss before each step
    <config>.grad.<param>                         gradients of the 10th forward
    <config>.param.<param>                        parameters after the 10th step
The configurations are repeated in test_parity.cpp; __metadata__ holds them as JSON too.
"""
import copy
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_min  # noqa: E402

CONFIGS = {
    "sgd_nesterov": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.01,
                                 nesterov=True), 5),
    "sgd_dampening": ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.0), None),
    "sgd_plain": ("SGD", dict(lr=0.2), None),
    "adam": ("Adam", dict(lr=0.01), 5),
    "adam_amsgrad_wd": ("Adam", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.01,
                                     amsgrad=True), None),
    "adamw": ("AdamW", dict(lr=0.01), None),
    "adamw_amsgrad": ("AdamW", dict(lr=0.02, betas=(0.85, 0.995), eps=1e-7, weight_decay=0.1,
                                    amsgrad=True), None),
}


def loss_fn(model, x, y, t):
    out = model(x)
    return (torch.nn.functional.cross_entropy(out, y)
            + 0.5 * torch.nn.functional.mse_loss(torch.sigmoid(out), t))


def make(dtype):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8),
                                torch.nn.ReLU(), torch.nn.Linear(8, 3)).to(dtype)
    x = torch.randn(16, 4, dtype=dtype)
    y = torch.randint(0, 3, (16,))
    t = torch.rand(16, 3, dtype=dtype)
    out = {"x": x, "y": y, "t": t}
    for name, p in model.named_parameters():
        out["init." + name] = p.detach().clone()
    for config, (kind, options, halve_after) in CONFIGS.items():
        m = copy.deepcopy(model)
        opt = getattr(torch.optim, kind)(m.parameters(), **options)
        losses = []
        for step in range(10):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(m, x, y, t)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if halve_after is not None and step + 1 == halve_after:
                for group in opt.param_groups:
                    group["lr"] *= 0.5
        out[config + ".losses"] = torch.tensor(losses, dtype=dtype)
        for name, p in m.named_parameters():
            out[config + ".grad." + name] = p.grad.detach().clone()
            out[config + ".param." + name] = p.detach().clone()
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    meta = {"generator": "tests/golden/make_golden.py", "torch": torch.__version__,
            "configs": json.dumps({k: [v[0], v[1], v[2]] for k, v in CONFIGS.items()})}
    for dtype, suffix in ((torch.float32, "float32"), (torch.float64, "float64")):
        path = os.path.join(here, f"parity_{suffix}.safetensors")
        safetensors_min.save(make(dtype), path, meta)
        print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
