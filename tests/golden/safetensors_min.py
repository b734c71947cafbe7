"""safetensors_min.py: a small reader and writer of the safetensors format with torch only
(Debian ships python3-torch but not PyPI's safetensors). It follows the format as the reference
implementation does: 8-byte little-endian header length, a JSON header (dtype, shape,
data_offsets, optional __metadata__), the header padded with spaces to 8 bytes, tensors laid out
in the data section back to back, and on reading: offsets in bounds, covering the data section
with no gap or overlap, sizes matching shape x dtype. Used by make_golden.py and
tests/nn/interop.py; the interop test also checks it against wick's own reader and writer."""
import json
import struct

import torch

DTYPES = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64, "BOOL": torch.bool,
          "F16": torch.float16, "BF16": torch.bfloat16, "I32": torch.int32, "U8": torch.uint8}
NAMES = {v: k for k, v in DTYPES.items()}


def save(tensors, path, metadata=None):
    header = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    blobs, offset = [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        data = t.numpy().tobytes() if t.dtype != torch.bfloat16 else t.view(torch.int16).numpy().tobytes()
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def load(path):
    """Returns (tensors, metadata); raises ValueError on a malformed file."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError("too short")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > 100_000_000 or 8 + n > len(raw):
        raise ValueError("bad header length")
    header = json.loads(raw[8:8 + n].decode())
    metadata = header.pop("__metadata__", None)
    data = raw[8 + n:]
    entries = sorted(header.items(), key=lambda kv: tuple(kv[1]["data_offsets"]))
    cursor, tensors = 0, {}
    for name, info in entries:
        begin, end = info["data_offsets"]
        if begin != cursor or end < begin or end > len(data):
            raise ValueError(f"bad data_offsets for {name}")
        dtype = DTYPES[info["dtype"]]
        shape = info["shape"]
        count = 1
        for s in shape:
            count *= s
        if count * torch.empty((), dtype=dtype).element_size() != end - begin:
            raise ValueError(f"size mismatch for {name}")
        buf = bytearray(data[begin:end])
        t = torch.frombuffer(buf, dtype=dtype) if end > begin else torch.empty(0, dtype=dtype)
        tensors[name] = t.reshape(shape).clone()
        cursor = end
    if cursor != len(data):
        raise ValueError("data section not covered")
    return tensors, metadata
