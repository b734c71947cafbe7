#!/usr/bin/python3
"""Writes window_golden.inc: conv_transpose2d, conv_transpose1d, unfold, fold, interpolate
(every mode), pixel_shuffle, pixel_unshuffle, prelu, instance_norm, the 1-D and adaptive
poolings, max pooling's indices, max_unpool2d and embedding_bag computed by PyTorch
(python3-torch 1.13) in float64, for tests/nn/test_upsample.cpp,
tests/nn/test_conv_transpose.cpp and tests/nn/test_pooling.cpp (embedding_bag: its gradient
of the weight; the indices are constants of each case). Each case records its inputs, the output, and the gradient of
(output * weight).sum() with respect to every input, weight a fixed wave of the output's shape.

    /usr/bin/python3 tests/nn/make_window_golden.py > tests/nn/window_golden.inc
"""
import torch
import torch.nn.functional as F

from golden_util import fmt, ints, wave


def case(name, fn, *inputs):
    leaves = [x.clone().requires_grad_() for x in inputs]
    y = fn(*leaves)
    w = wave(list(y.shape), 0.9, 1.0)
    (y * w).sum().backward()
    print('    {"%s", {%s}, {%s}, %s, %s, {%s}},' % (
        name, ", ".join(ints(x.shape) for x in inputs), ", ".join(fmt(x) for x in inputs),
        ints(y.shape), fmt(y.detach()),
        ", ".join(fmt(l.grad) if l.grad is not None else "{}" for l in leaves)))


def conv_transpose_cases():
    x, w, b = wave([2, 4, 3, 3], 0.1), wave([4, 3, 3, 3], 0.7, 0.5), wave([3], 1.3)
    case("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b), x, w, b)
    case("conv_transpose2d, stride 2, padding 1, output_padding 1",
         lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
         x, w, b)
    w2 = wave([4, 2, 2, 3], 0.4, 0.5)
    case("conv_transpose2d, groups 2, dilation 2, stride (2, 1), padding (1, 0)",
         lambda x, w: F.conv_transpose2d(x, w, stride=(2, 1), padding=(1, 0),
                                         output_padding=(1, 1), groups=2, dilation=2),
         x, w2)
    case("conv_transpose2d, unbatched, padding past the kernel",
         lambda x, w, b: F.conv_transpose2d(x, w, b, padding=2),
         wave([4, 3, 4], 0.2), wave([4, 2, 3, 3], 0.5, 0.5), wave([2], 0.1))
    case("conv_transpose1d, stride 2, padding 1, output_padding 1, groups 2",
         lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1,
                                            groups=2),
         wave([2, 4, 5], 0.3), wave([4, 1, 3], 0.8, 0.5), wave([2], 0.6))
    case("conv_transpose1d, unbatched, dilation 3",
         lambda x, w: F.conv_transpose1d(x, w, dilation=3), wave([2, 4], 0.3),
         wave([2, 3, 2], 0.8, 0.5))
    case("unfold, kernel (2, 3), dilation (1, 2), padding 1, stride (2, 1)",
         lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
         wave([2, 3, 5, 6], 0.1))
    case("unfold, unbatched", lambda x: F.unfold(x, 2), wave([2, 3, 3], 0.4))
    case("fold, kernel 2", lambda x: F.fold(x, (4, 5), 2), wave([2, 12, 12], 0.2))
    case("fold, kernel (3, 2), stride 2, padding 1, dilation (1, 2)",
         lambda x: F.fold(x, (5, 6), (3, 2), dilation=(1, 2), padding=1, stride=2),
         wave([1, 12, 9], 0.2))
    case("fold, unbatched", lambda x: F.fold(x, (3, 3), 2), wave([8, 4], 0.5))
    case("conv2d, padding same, kernel (3, 4), dilation (1, 2)",
         lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(1, 2)),
         wave([2, 2, 5, 6], 0.1), wave([3, 2, 3, 4], 0.6, 0.5), wave([3], 0.2))
    case("conv2d, padding valid", lambda x, w: F.conv2d(x, w, padding="valid"),
         wave([1, 2, 5, 6], 0.1), wave([3, 2, 3, 2], 0.6, 0.5))
    case("conv1d, padding same, kernel 4, groups 2",
         lambda x, w: F.conv1d(x, w, padding="same", groups=2),
         wave([2, 4, 7], 0.3), wave([4, 2, 4], 0.9, 0.5))


def upsample_cases():
    img = wave([2, 2, 4, 5], 0.1)
    line = wave([2, 3, 4], 0.3)
    case("nearest, scale 2", lambda x: F.interpolate(x, scale_factor=2), img)
    case("nearest, size (5, 7)", lambda x: F.interpolate(x, size=(5, 7)), img)
    case("nearest, 3-D, scale 1.3", lambda x: F.interpolate(x, scale_factor=1.3), line)
    case("nearest, 3-D, size 3 (down)", lambda x: F.interpolate(x, size=3), line)
    case("nearest, 5-D, size (3, 2, 4)", lambda x: F.interpolate(x, size=(3, 2, 4)),
         wave([1, 2, 2, 3, 2], 0.4))
    case("nearest-exact, size (7, 3)",
         lambda x: F.interpolate(x, size=(7, 3), mode="nearest-exact"), img)
    case("linear, size 7", lambda x: F.interpolate(x, size=7, mode="linear"), line)
    case("linear, size 7, align_corners",
         lambda x: F.interpolate(x, size=7, mode="linear", align_corners=True), line)
    case("linear, scale 1.2 (same size)",
         lambda x: F.interpolate(x, scale_factor=1.2, mode="linear"), wave([1, 2, 3], 0.5))
    case("linear, scale 0.6 (down)",
         lambda x: F.interpolate(x, scale_factor=0.6, mode="linear"), line)
    case("bilinear, scale 1.7",
         lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear"), img)
    case("bilinear, size (3, 8), align_corners",
         lambda x: F.interpolate(x, size=(3, 8), mode="bilinear", align_corners=True), img)
    case("bilinear, scale (2, 0.5), recompute_scale_factor",
         lambda x: F.interpolate(x, scale_factor=(2, 0.5), mode="bilinear",
                                 recompute_scale_factor=True), img)
    case("bicubic, scale 2", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"), img)
    case("bicubic, size (6, 3), align_corners",
         lambda x: F.interpolate(x, size=(6, 3), mode="bicubic", align_corners=True), img)
    case("trilinear, size (3, 5, 4)",
         lambda x: F.interpolate(x, size=(3, 5, 4), mode="trilinear"),
         wave([1, 2, 2, 3, 2], 0.6))
    case("area, size (3, 2)", lambda x: F.interpolate(x, size=(3, 2), mode="area"), img)
    case("area, 3-D, size 3", lambda x: F.interpolate(x, size=3, mode="area"), line)
    case("pixel_shuffle 2", lambda x: F.pixel_shuffle(x, 2), wave([2, 8, 2, 3], 0.2))
    case("pixel_shuffle 3, 3-D", lambda x: F.pixel_shuffle(x, 3), wave([9, 1, 2], 0.2))
    case("pixel_unshuffle 2", lambda x: F.pixel_unshuffle(x, 2), wave([1, 2, 2, 4, 6], 0.7))
    x = wave([2, 3, 4], 0.1)
    x[0, 1, 2] = 0.0  # the kink: the gradient is weight's side
    case("prelu, per channel", lambda x, w: F.prelu(x, w), x, wave([3], 0.5, 0.3))
    case("prelu, one weight", lambda x, w: F.prelu(x, w), wave([5], 0.8), wave([1], 0.5, 0.3))
    case("instance_norm, affine",
         lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
         wave([2, 3, 5], 0.2, 2.0, 1.0), wave([3], 0.4, 0.5, 1.0), wave([3], 0.9, 0.3))
    case("instance_norm, 4-D, eps 1e-3",
         lambda x: F.instance_norm(x, eps=1e-3), wave([2, 2, 3, 4], 0.3, 2.0, 1.0))
    rm, rv = wave([3], 0.1, 0.2), wave([3], 0.3, 0.2, 1.0)
    case("instance_norm, running statistics (eval)",
         lambda x: F.instance_norm(x, rm, rv, use_input_stats=False),
         wave([2, 3, 4], 0.5, 2.0, 1.0))


def pooling_cases():
    img = wave([2, 2, 5, 6], 0.1)
    img[0, 0, 1, 1] = img[0, 0, 1, 2]  # a tie inside one window: the first wins
    line = wave([2, 3, 7], 0.4)
    line[1, 2, 3] = line[1, 2, 4]
    case("max_pool2d values, kernel 3, stride 2, padding 1",
         lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)[0], img)
    case("max_pool1d, kernel 3, stride 2, padding 1, dilation 2",
         lambda x: F.max_pool1d(x, 3, 2, 1, dilation=2), line)
    case("max_pool1d, kernel 2, ceil_mode, unbatched",
         lambda x: F.max_pool1d(x, 2, ceil_mode=True), line[0])
    case("avg_pool1d, kernel 3, stride 2, padding 1, count_include_pad false",
         lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), line)
    case("adaptive_avg_pool1d 4", lambda x: F.adaptive_avg_pool1d(x, 4), line)
    case("adaptive_max_pool2d (3, 4)", lambda x: F.adaptive_max_pool2d(x, (3, 4)), img)
    case("adaptive_max_pool2d (2, 2), unbatched",
         lambda x: F.adaptive_max_pool2d(x, (2, 2)), img[0])
    case("adaptive_max_pool1d 3", lambda x: F.adaptive_max_pool1d(x, 3), line)
    v, i = F.max_pool2d(img, 2, 2, return_indices=True)
    case("max_unpool2d, kernel 2", lambda x: F.max_unpool2d(x, i, 2), v)
    v3, i3 = F.max_pool2d(img, 3, 2, 1, return_indices=True)
    case("max_unpool2d, kernel 3, stride 2, padding 1, output_size (5, 6)",
         lambda x: F.max_unpool2d(x, i3, 3, 2, 1, output_size=(5, 6)), v3)


def embedding_bag_cases():
    weight = wave([6, 3], 0.3)
    weight[2] = weight[4]  # equal rows: max picks the first
    flat = torch.tensor([1, 2, 4, 0, 5, 5, 3, 1, 0])
    offsets = torch.tensor([0, 3, 3, 7])  # the second bag is empty
    grid = torch.tensor([[0, 2, 4], [5, 1, 1]])
    for mode in ["sum", "mean", "max"]:
        case("embedding_bag %s, offsets" % mode,
             lambda w, m=mode: F.embedding_bag(flat, w, offsets, mode=m), weight)
        case("embedding_bag %s, 2-D" % mode,
             lambda w, m=mode: F.embedding_bag(grid, w, mode=m), weight)
        case("embedding_bag %s, padding_idx 1, include_last_offset" % mode,
             lambda w, m=mode: F.embedding_bag(flat, w, torch.tensor([0, 2, 5, 9]), mode=m,
                                               padding_idx=1, include_last_offset=True),
             weight)
    case("embedding_bag sum, per_sample_weights",
         lambda w, p: F.embedding_bag(flat, w, offsets, mode="sum", per_sample_weights=p),
         weight, wave([9], 1.1))


def indices():
    """The indices max pooling returns, as int64 lists: {name, shape, indices}."""
    img = wave([2, 2, 5, 6], 0.1)
    img[0, 0, 1, 1] = img[0, 0, 1, 2]
    img[1, 1, 2, 3] = float("nan")  # NaN wins its windows (checked by index only)
    line = wave([2, 3, 7], 0.4)
    line[1, 2, 3] = line[1, 2, 4]
    for name, idx in [
            ("max_pool2d, kernel 3, stride 2, padding 1",
             F.max_pool2d(img, 3, 2, 1, return_indices=True)[1]),
            ("max_pool2d, kernel 2", F.max_pool2d(img, 2, 2, return_indices=True)[1]),
            ("max_pool1d, kernel 3, stride 2, padding 1, dilation 2",
             F.max_pool1d(line, 3, 2, 1, dilation=2, return_indices=True)[1]),
            ("adaptive_max_pool2d (3, 4)",
             F.adaptive_max_pool2d(img, (3, 4), return_indices=True)[1]),
            ("adaptive_max_pool1d 3", F.adaptive_max_pool1d(line, 3, return_indices=True)[1])]:
        print('    {"%s", %s, %s},' % (name, ints(idx.shape), ints(idx.flatten().tolist())))


def main():
    print("// Generated by tests/nn/make_window_golden.py from python3-torch %s; do not edit."
          % torch.__version__)
    print("// {name, input shapes, inputs, output shape, output, d (output * weight).sum() / d"
          " each input}")
    print("static const std::vector<MultiInputCase> kConvTransposeCases = {")
    conv_transpose_cases()
    print("};")
    print("static const std::vector<MultiInputCase> kUpsampleCases = {")
    upsample_cases()
    print("};")
    print("static const std::vector<MultiInputCase> kPoolingCases = {")
    pooling_cases()
    print("};")
    print("static const std::vector<MultiInputCase> kEmbeddingBagCases = {")
    embedding_bag_cases()
    print("};")
    print("struct PoolIndices {")
    print("  std::string name;")
    print("  std::vector<int64_t> shape, indices;")
    print("};")
    print("static const std::vector<PoolIndices> kPoolIndices = {")
    indices()
    print("};")


if __name__ == "__main__":
    main()
