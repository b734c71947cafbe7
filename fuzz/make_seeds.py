#!/usr/bin/env python3
"""make_seeds.py: writes the committed seed corpora of the wick fuzzers (fuzz/corpus/).

safetensors/: small valid files of every dtype wick reads (0-d, empty, several tensors,
metadata) and a few invalid ones (unsupported dtype, overlapping offsets, truncated), written
by the format's rules (8-byte little-endian header length, JSON header, raw little-endian data).
ops/ and autograd/: byte strings from a fixed-seed generator; the fuzzers decode any bytes
into a program (fuzz/byte_reader.hpp), so these only give libFuzzer a varied start.
Deterministic: rerunning rewrites the same files. Usage: python3 fuzz/make_seeds.py
"""
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def safetensors(tensors, metadata=None, pad=True, raw_header=None):
    """tensors: list of (name, dtype, shape, bytes). Returns the file's bytes."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    data = b""
    for name, dtype, shape, payload in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(payload)]}
        offset += len(payload)
        data += payload
    text = raw_header if raw_header is not None else json.dumps(header, separators=(",", ":"))
    text = text.encode()
    if pad:
        text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


def f64(*values):
    return struct.pack("<%dd" % len(values), *values)


def i64(*values):
    return struct.pack("<%dq" % len(values), *values)


def write(folder, name, data):
    path = os.path.join(HERE, "corpus", folder)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name), "wb") as out:
        out.write(data)


def main():
    st = {
        "two_tensors_metadata": safetensors(
            [("linear.weight", "F32", [2, 3], f32(1, -2, 3.5, 0, float("inf"), -0.0)),
             ("linear.bias", "I64", [2], i64(-1, 2**62))],
            metadata={"format": "pt"}),
        "bool_and_scalar": safetensors(
            [("mask", "BOOL", [3], bytes([1, 0, 1])), ("step", "F64", [], f64(3.25))]),
        "empty_tensor": safetensors([("empty", "F32", [0, 4], b""), ("x", "I64", [1], i64(7))]),
        "no_tensors": safetensors([]),
        "metadata_only": safetensors([], metadata={"a": "b", "": ""}),
        "rank4_f64": safetensors([("t", "F64", [1, 2, 1, 2], f64(0.5, -0.5, 1e300, -1e-300))]),
        # 1.0, NaN, -inf, the smallest subnormal: bit patterns that must load back unchanged.
        "bf16_values": safetensors([("w", "BF16", [2, 2], struct.pack("<4H", 0x3F80, 0x7FC1,
                                                                       0xFF80, 0x0001))]),
        "unsupported_f16": safetensors([("h", "F16", [2], b"\x00\x3c\x00\x40")]),
        "overlap": safetensors([], raw_header='{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                             '"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}')
        + f32(1.0),
        "bad_bool": safetensors([("m", "BOOL", [2], bytes([1, 2]))]),
        "unpadded": safetensors([("x", "F32", [1], f32(2.0))], pad=False),
    }
    valid = st["two_tensors_metadata"]
    st["truncated"] = valid[:len(valid) - 3]
    for name, data in st.items():
        write("safetensors", name, data)

    rng = random.Random(20260101)
    for i in range(24):
        n = rng.choice([16, 32, 64, 128, 256, 400])
        write("ops", "seed_%02d" % i, bytes(rng.randrange(256) for _ in range(n)))
    for i in range(16):
        n = rng.choice([24, 48, 80, 120])
        write("autograd", "seed_%02d" % i, bytes(rng.randrange(256) for _ in range(n)))


if __name__ == "__main__":
    main()
