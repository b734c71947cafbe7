#!/usr/bin/python3
"""Writes attention_golden.inc: torch.nn.MultiheadAttention, TransformerEncoderLayer and
TransformerEncoder (python3-torch 1.13, float64, training mode with dropout 0, so the general
path runs) for tests/nn/test_attention.cpp. Each case: the configuration, the parameters in
registration order, the inputs and masks, the output (and the attention weights), and the
gradients of sum(out * seed) + sum(weights * seed_w) for the inputs and every parameter.

    /usr/bin/python3 tests/nn/make_attention_golden.py > tests/nn/attention_golden.inc
"""
import torch

from golden_util import fmt, ints, wave

EMPTY = "{}"


def nested(tensors):
    return "{" + ", ".join(fmt(t) for t in tensors) + "}"


def mask_fields(mask):
    # kind 0: none, 1: bool, 2: floating; then the shape and the values (bool as 0/1).
    if mask is None:
        return "0, {}, {}"
    kind = 1 if mask.dtype == torch.bool else 2
    return "%d, %s, %s" % (kind, ints(mask.shape), fmt(mask.double()))


def emit(name, kind, config, module, inputs, kpm, attn_mask, run):
    params = list(module.parameters())
    with torch.no_grad():
        for i, p in enumerate(params):
            p.copy_(wave(list(p.shape), 0.7 * i + 0.1, 0.4, 1.0 if "norm" in str(i) else 0.0))
    for t in inputs:
        t.requires_grad_()
    out, weights = run(module, inputs, kpm, attn_mask)
    seed = wave(list(out.shape), 0.9, 1.0)
    loss = (out * seed).sum()
    seed_w = None
    if weights is not None:
        seed_w = wave(list(weights.shape), 1.9, 1.0)
        loss = loss + (weights * seed_w).sum()
    loss.backward()
    shapes = "{" + ", ".join(ints(t.shape) for t in inputs) + "}"
    print('    {"%s", "%s", %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s},' % (
        name, kind, ints(config), shapes, nested([t.detach() for t in inputs]),
        mask_fields(kpm), mask_fields(attn_mask), nested([p.detach() for p in params]),
        fmt(seed), EMPTY if seed_w is None else fmt(seed_w), fmt(out.detach()),
        EMPTY if weights is None else fmt(weights.detach()),
        ints(weights.shape if weights is not None else []),
        nested([t.grad for t in inputs]), nested([p.grad for p in params])))


def mha(name, e, h, q_shape, kv_len, kdim=None, vdim=None, bias=True, batch_first=False,
        average=True, kpm=None, attn_mask=None, need_weights=True):
    kdim = kdim or e
    vdim = vdim or e
    module = torch.nn.MultiheadAttention(e, h, bias=bias, kdim=kdim, vdim=vdim,
                                         batch_first=batch_first).double()
    q = wave(q_shape, 0.2, 1.5, 0.1)
    kv = list(q_shape)
    kv[1 if batch_first and len(q_shape) == 3 else 0] = kv_len
    k = wave(kv[:-1] + [kdim], 1.2, 1.3)
    v = wave(kv[:-1] + [vdim], 2.2, 1.1)

    def run(m, ins, kpm_, mask_):
        return m(ins[0], ins[1], ins[2], key_padding_mask=kpm_, need_weights=need_weights,
                 attn_mask=mask_, average_attn_weights=average)

    config = [e, h, kdim, vdim, int(bias), int(batch_first), int(average), int(need_weights)]
    emit(name, "MHA", config, module, [q, k, v], kpm, attn_mask, run)


def encoder(name, e, h, ff, src_shape, norm_first=False, gelu=False, batch_first=False,
            layers=0, final_norm=False, kpm=None, attn_mask=None):
    layer = torch.nn.TransformerEncoderLayer(e, h, dim_feedforward=ff, dropout=0.0,
                                             activation="gelu" if gelu else "relu",
                                             batch_first=batch_first,
                                             norm_first=norm_first).double()
    module = layer
    if layers:
        norm = torch.nn.LayerNorm(e).double() if final_norm else None
        module = torch.nn.TransformerEncoder(layer, layers, norm=norm,
                                             enable_nested_tensor=False).double()
    src = wave(src_shape, 0.2, 1.5, 0.1)

    def run(m, ins, kpm_, mask_):
        if layers:
            return m(ins[0], mask=mask_, src_key_padding_mask=kpm_), None
        return m(ins[0], src_mask=mask_, src_key_padding_mask=kpm_), None

    config = [e, h, ff, int(norm_first), int(gelu), int(batch_first), layers, int(final_norm)]
    emit(name, "encoder", config, module, [src], kpm, attn_mask, run)


def decoder(name, e, h, ff, tgt_shape, mem_len, norm_first=False, gelu=False,
            batch_first=False, layers=0, final_norm=False, kpm=None, attn_mask=None):
    layer = torch.nn.TransformerDecoderLayer(e, h, dim_feedforward=ff, dropout=0.0,
                                             activation="gelu" if gelu else "relu",
                                             batch_first=batch_first,
                                             norm_first=norm_first).double()
    module = layer
    if layers:
        norm = torch.nn.LayerNorm(e).double() if final_norm else None
        module = torch.nn.TransformerDecoder(layer, layers, norm=norm).double()
    tgt = wave(tgt_shape, 0.2, 1.5, 0.1)
    mem_shape = list(tgt_shape)
    mem_shape[1 if batch_first else 0] = mem_len
    memory = wave(mem_shape, 1.2, 1.3)

    def run(m, ins, kpm_, mask_):
        return m(ins[0], ins[1], tgt_mask=mask_, memory_key_padding_mask=kpm_), None

    config = [e, h, ff, int(norm_first), int(gelu), int(batch_first), layers, int(final_norm)]
    emit(name, "decoder", config, module, [tgt, memory], kpm, attn_mask, run)


def transformer(name, e, h, ff, src_shape, tgt_len, enc, dec, kpm=None, attn_mask=None):
    module = torch.nn.Transformer(e, h, enc, dec, dim_feedforward=ff, dropout=0.0).double()
    src = wave(src_shape, 0.2, 1.5, 0.1)
    tgt_shape = list(src_shape)
    tgt_shape[0] = tgt_len
    tgt = wave(tgt_shape, 1.2, 1.3)

    def run(m, ins, kpm_, mask_):
        return m(ins[0], ins[1], tgt_mask=mask_, src_key_padding_mask=kpm_,
                 memory_key_padding_mask=kpm_), None

    config = [e, h, ff, 0, 0, 0, enc, dec]
    emit(name, "transformer", config, module, [src, tgt], kpm, attn_mask, run)


def main():
    print("// Generated by tests/nn/make_attention_golden.py from python3-torch %s; do not edit."
          % torch.__version__)
    print("// {name, kind, config, input shapes, inputs, key padding mask (kind, shape, values),")
    print("//  attn mask (kind, shape, values), parameters, seed, seed for the weights, output,")
    print("//  weights, weights shape, d inputs, d parameters}")
    print("static const std::vector<AttentionCase> kAttentionCases = {")
    kpm = torch.tensor([[False, False, False, True, True], [False] * 5,
                        [False, True, False, False, False]])
    mha("MHA: packed weights, bool padding, float mask", 8, 2, [4, 3, 8], 5, kpm=kpm,
        attn_mask=wave([4, 5], 0.5, 0.7))
    causal3 = torch.ones(3, 4, dtype=torch.bool).triu(2).repeat(6, 1, 1)
    mha("MHA: kdim and vdim, batch_first, 3-D bool mask, weights per head", 6, 3, [2, 3, 6], 4,
        kdim=4, vdim=5, batch_first=True, average=False, attn_mask=causal3)
    mha("MHA: unbatched, no bias, bool padding", 4, 2, [3, 4], 5, bias=False,
        kpm=torch.tensor([False, True, False, False, True]))
    mha("MHA: float padding, no weights", 8, 4, [2, 2, 8], 3,
        kpm=wave([2, 3], 0.3, 0.5), need_weights=False)
    causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
    kpm2 = torch.tensor([[False, False, False, False, True], [False] * 5])
    encoder("encoder layer: post-norm, relu, causal mask and padding", 8, 2, 16, [5, 2, 8],
            kpm=kpm2, attn_mask=causal)
    encoder("encoder layer: pre-norm, gelu, batch_first", 8, 4, 12, [2, 4, 8], norm_first=True,
            gelu=True, batch_first=True)
    encoder("encoder: 2 layers and a final norm", 8, 2, 16, [3, 2, 8], layers=2,
            final_norm=True)
    mem_kpm = torch.tensor([[False, False, True], [False, False, False]])
    decoder("decoder layer: post-norm, causal tgt mask, memory padding", 8, 2, 16, [4, 2, 8], 3,
            kpm=mem_kpm, attn_mask=torch.ones(4, 4, dtype=torch.bool).triu(1))
    decoder("decoder layer: pre-norm, gelu, batch_first", 8, 4, 12, [2, 3, 8], 5,
            norm_first=True, gelu=True, batch_first=True)
    decoder("decoder: 2 layers and a final norm, float tgt mask", 8, 2, 16, [3, 2, 8], 4,
            layers=2, final_norm=True, attn_mask=wave([3, 3], 0.4, 0.5))
    transformer("Transformer: 1 encoder and 2 decoder layers, padding, causal mask", 8, 2, 16,
                [5, 2, 8], 4, 1, 2, kpm=torch.tensor([[False] * 4 + [True], [False] * 5]),
                attn_mask=torch.nn.Transformer.generate_square_subsequent_mask(4).double())
    print("};")


if __name__ == "__main__":
    main()
