#!/usr/bin/python3
"""interop.py: the PyTorch half of wick's safetensors interop tests, run by CTest with Debian's
/usr/bin/python3. Exits 77 (CTest's SKIP_RETURN_CODE) when torch is not importable.

  interop.py tensors <interop_tool> <workdir>
      wick writes tensors, an MLP, an LSTM and a Transformer encoder layer; we read them with tests/golden/safetensors_min.py (and
      PyPI's safetensors when installed), check every value bit for bit, load the MLP's file
      into torch.nn.Sequential (the others into torch's LSTM and TransformerEncoderLayer) with
      strict=True and compare outputs; then we write the same
      tensors and a torch MLP for wick to read and check (interop_tool check).
  interop.py mlp <prefix>
      reads the model and data set that examples/train_mlp saved (<prefix>.model.safetensors,
      <prefix>.data.safetensors), rebuilds the MLP in torch from the file's shapes and checks
      torch's accuracy and logits against wick's.
"""
import os
import subprocess
import sys

try:
    import torch
except ImportError:
    print("python3-torch is not installed: skipping")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import safetensors_min  # noqa: E402

try:
    import safetensors.torch as official  # PyPI's reference implementation, if present
except ImportError:
    official = None


def expected():
    f32 = torch.tensor([(i - 5) * 0.25 for i in range(12)], dtype=torch.float32).reshape(3, 4)
    return {
        "f32": f32,
        "f32_t": f32.t().contiguous(),
        "special": torch.tensor([float("inf"), float("-inf"), -0.0, 1e-45], dtype=torch.float32),
        "f64": torch.tensor([i * 0.1 for i in range(6)], dtype=torch.float64).reshape(2, 3),
        "i64": torch.tensor([-2**63, 2**63 - 1, 0, 42], dtype=torch.int64),
        "bool": torch.tensor([True, False, False, True]),
        "scalar": torch.tensor(2.5, dtype=torch.float64),
        "empty": torch.zeros(0, 3),
        # bfloat16: a subnormal (2^-133, bits 0x0001), -0, inf and a value near its maximum.
        "bf16": torch.tensor([1.5, -0.0, float("inf"), -2.0, 2.0**-133, 1.5 * 2.0**127],
                             dtype=torch.float32).to(torch.bfloat16),
    }


def same_bits(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.is_floating_point:
        view = {torch.float32: torch.int32, torch.float64: torch.int64,
                torch.bfloat16: torch.int16}[a.dtype]
        return torch.equal(a.contiguous().view(view), b.contiguous().view(view))
    return torch.equal(a, b)


def check_tensors(tool, work):
    failures = 0
    subprocess.run([tool, "write", work], check=True)
    path = os.path.join(work, "wick_tensors.safetensors")
    readers = [("safetensors_min", lambda p: safetensors_min.load(p)[0])]
    if official is not None:
        readers.append(("safetensors (PyPI)", official.load_file))
    want = expected()
    for reader_name, read in readers:
        got = read(path)
        for name, t in want.items():
            if name not in got or not same_bits(got[name], t):
                print(f"{reader_name}: '{name}' differs: {got.get(name)} vs {t}")
                failures += 1
        if set(got) != set(want):
            print(f"{reader_name}: names {sorted(got)} != {sorted(want)}")
            failures += 1
    metadata = safetensors_min.load(path)[1]
    if metadata != {"writer": "wick"}:
        print("metadata differs:", metadata)
        failures += 1

    # wick's Sequential file is a torch.nn.Sequential state_dict.
    state, _ = safetensors_min.load(os.path.join(work, "wick_mlp.safetensors"))
    model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    model.load_state_dict(state, strict=True)
    io, _ = safetensors_min.load(os.path.join(work, "wick_mlp_io.safetensors"))
    with torch.no_grad():
        err = (model(io["x"]) - io["y"]).abs().max().item()
    print(f"wick MLP in torch: max |torch - wick| = {err:.3g}")
    if not err <= 1e-6:
        failures += 1

    # wick's LSTM and Transformer encoder layer load into torch's with strict=True (the names
    # are PyTorch's) and compute wick's outputs.
    lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    state, _ = safetensors_min.load(os.path.join(work, "wick_lstm.safetensors"))
    lstm.load_state_dict(state, strict=True)
    io, _ = safetensors_min.load(os.path.join(work, "wick_lstm_io.safetensors"))
    with torch.no_grad():
        out, (_, c) = lstm(io["x"])
        err = max((out - io["y"]).abs().max().item(), (c - io["c"]).abs().max().item())
    print(f"wick LSTM in torch: max |torch - wick| = {err:.3g}")
    if not err <= 1e-5:
        failures += 1
    encoder = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0).eval()
    state, _ = safetensors_min.load(os.path.join(work, "wick_encoder.safetensors"))
    encoder.load_state_dict(state, strict=True)
    io, _ = safetensors_min.load(os.path.join(work, "wick_encoder_io.safetensors"))
    with torch.no_grad():
        err = (encoder(io["x"], src_mask=io["mask"]) - io["y"]).abs().max().item()
    print(f"wick TransformerEncoderLayer in torch: max |torch - wick| = {err:.3g}")
    if not err <= 1e-5:
        failures += 1

    # Now the other way: torch writes, wick reads and checks.
    safetensors_min.save(want, os.path.join(work, "torch_tensors.safetensors"), {"writer": "torch"})
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    safetensors_min.save(dict(model.state_dict()), os.path.join(work, "torch_mlp.safetensors"),
                         {"format": "pt"})
    x = torch.randn(9, 3)
    with torch.no_grad():
        safetensors_min.save({"x": x, "y": model(x)}, os.path.join(work, "torch_mlp_io.safetensors"))
    result = subprocess.run([tool, "check", work])
    if result.returncode != 0:
        failures += 1
    if official is not None:  # the reference writer's files too
        official.save_file(want, os.path.join(work, "torch_tensors.safetensors"))
        if subprocess.run([tool, "check", work]).returncode != 0:
            failures += 1
    return failures


def check_mlp(prefix):
    state, meta = safetensors_min.load(prefix + ".model.safetensors")
    data, _ = safetensors_min.load(prefix + ".data.safetensors")
    indices = sorted({int(k.split(".")[0]) for k in state})
    layers = []
    for n, i in enumerate(indices):
        w = state[f"{i}.weight"]
        layers.append(torch.nn.Linear(w.shape[1], w.shape[0]))
        if n + 1 < len(indices):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    if [2 * k for k in range(len(indices))] != indices:
        print("unexpected layer indices", indices)
        return 1
    model.load_state_dict(state, strict=True)
    with torch.no_grad():
        logits = model(data["x"])
    accuracy = (logits.argmax(1) == data["y"]).double().mean().item()
    wick_accuracy = data["accuracy"].item()
    err = (logits - data["logits"]).abs().max().item()
    print(f"torch on wick's trained MLP: accuracy {100 * accuracy:.2f}% "
          f"(wick {100 * wick_accuracy:.2f}%), max |logits diff| {err:.3g}, metadata {meta}")
    ok = accuracy >= 0.95 and abs(accuracy - wick_accuracy) <= 0.002 and err <= 1e-4
    return 0 if ok else 1


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "tensors":
        failures = check_tensors(sys.argv[2], sys.argv[3])
        print("interop:", "all match" if failures == 0 else f"{failures} failure(s)")
        return 0 if failures == 0 else 1
    if len(sys.argv) == 3 and sys.argv[1] == "mlp":
        return check_mlp(sys.argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
