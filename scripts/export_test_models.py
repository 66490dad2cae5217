#!/usr/bin/python3
"""Exports PyTorch models to ONNX for partsim (tests and the README's "Bring your own model").

    /usr/bin/python3 scripts/export_test_models.py OUT_DIR [MODEL ...]

MODEL: resnet18, vgg16, bert_mini, dynamic_seq, mha, encoder_layer, gpt_block, transpose_pool.
Writes OUT_DIR/<name>.onnx for each model named (all of them by default). Debian's python3-torch and
python3-torchvision only: weights are random (seeded), nothing is downloaded, and the python onnx
package is not needed. Every model is exported at batch 1 (partsim's workloads are per sample; the
batch is simplan's --batch) with opset 16, which Debian's libonnx 1.12 knows.

- resnet18, vgg16: torchvision's models with a softmax appended, as the zoo's "prob" layer. The
  export keeps batch normalisation (training=PRESERVE on a model in eval mode, no constant folding):
  an eval-mode export would fold it into the convolutions. vgg16 is written without its weights
  (export_params=False: 528 MB otherwise); they stay graph inputs with their shapes, and partsim
  counts them from the convolution and Gemm slots they fill.
- bert_mini: a 2-layer BERT encoder of width 128 with 4 heads at sequence length 128, written like
  the zoo's bert_ops (workloads/op_graphs.hpp): word, position and segment embeddings, separate q, k,
  v projections, the 1/sqrt(d) scale folded into q's weights, GELU feed-forward of 4 x width.
- dynamic_seq: one nn.Linear(8, 16) over batch x seq x 8 with both dimensions dynamic (named
  "batch" and "seq"): partsim needs dynamic_seq.onnx#seq=N.
- mha: torch's own nn.MultiheadAttention(128, 4, batch_first=True) as self-attention over 64
  positions. Its export packs q, k and v into one projection cut with Slice, whose ends it computes
  from Shape (Shape, Gather, Add, Div, Mul), and transposes the batch behind the sequence.
- encoder_layer: torch's nn.TransformerEncoderLayer(128, 4, dim_feedforward=512) (post-norm, ReLU),
  batch first, 64 positions.
- gpt_block: a GPT-2 block in plain torch (Hugging Face's layout): pre-norm, one fused q, k, v
  projection cut with tensor.split (Split), a causal mask applied with masked_fill (Where over a
  constant mask sliced to the sequence), GELU feed-forward of 4 x 128; 64 positions.
- transpose_pool: a sequence 32 x 64 transposed to 64 channels for a Conv1d(64, 128, 3, padding=1),
  adaptive_avg_pool1d to 1, flatten, nn.Linear(128, 10): a layout that flips through a Transpose.
"""
import math
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_help import answer_help  # noqa: E402

answer_help(__doc__)  # before torch's import (seconds): --help was read as OUT_DIR and exported every model into it

import torch  # noqa: E402
import torchvision  # noqa: E402

OPSET = 16


class EncoderLayer(torch.nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.out = (torch.nn.Linear(width, width) for _ in range(4))
        self.attention_norm = torch.nn.LayerNorm(width)
        self.ffn1 = torch.nn.Linear(width, 4 * width)
        self.ffn2 = torch.nn.Linear(4 * width, width)
        self.ffn_norm = torch.nn.LayerNorm(width)
        with torch.no_grad():  # softmax(q k^T / sqrt(d)) with the scale folded into q, as bert_ops counts it
            d = width // heads
            self.q.weight /= math.sqrt(d)
            self.q.bias /= math.sqrt(d)

    def forward(self, x):
        batch, seq, width = x.shape
        d = width // self.heads
        q = self.q(x).reshape(batch, seq, self.heads, d).transpose(1, 2)  # batch, heads, seq, d
        k = self.k(x).reshape(batch, seq, self.heads, d).permute(0, 2, 3, 1)  # batch, heads, d, seq
        v = self.v(x).reshape(batch, seq, self.heads, d).transpose(1, 2)
        probs = torch.softmax(q @ k, dim=-1)
        context = (probs @ v).transpose(1, 2).reshape(batch, seq, width)
        x = self.attention_norm(self.out(context) + x)
        return self.ffn_norm(self.ffn2(torch.nn.functional.gelu(self.ffn1(x))) + x)


class BertMini(torch.nn.Module):
    def __init__(self, layers=2, width=128, heads=4, vocab=30522, positions=512, segments=2):
        super().__init__()
        self.word = torch.nn.Embedding(vocab, width)
        self.position = torch.nn.Embedding(positions, width)
        self.segment = torch.nn.Embedding(segments, width)
        self.embed_norm = torch.nn.LayerNorm(width)
        self.layers = torch.nn.ModuleList(EncoderLayer(width, heads) for _ in range(layers))

    def forward(self, tokens, positions, segments):
        x = self.embed_norm(self.word(tokens) + self.position(positions) + self.segment(segments))
        for layer in self.layers:
            x = layer(x)
        return x


class SelfAttention(torch.nn.Module):
    """torch.nn.MultiheadAttention used as self-attention: forward(x) = attention(x, x, x)."""

    def __init__(self, width=128, heads=4):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(width, heads, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


class GptBlock(torch.nn.Module):
    def __init__(self, width=128, heads=4, positions=64):
        super().__init__()
        self.heads = heads
        self.ln_1 = torch.nn.LayerNorm(width)
        self.c_attn = torch.nn.Linear(width, 3 * width)
        self.c_proj = torch.nn.Linear(width, width)
        self.ln_2 = torch.nn.LayerNorm(width)
        self.c_fc = torch.nn.Linear(width, 4 * width)
        self.mlp_proj = torch.nn.Linear(4 * width, width)
        self.register_buffer("bias", torch.tril(torch.ones(positions, positions, dtype=torch.bool)))

    def forward(self, x):
        batch, seq, width = x.shape
        d = width // self.heads
        q, k, v = self.c_attn(self.ln_1(x)).split(width, dim=2)
        q, k, v = (t.view(batch, seq, self.heads, d).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        scores = scores.masked_fill(~self.bias[:seq, :seq], float("-inf"))
        context = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(batch, seq, width)
        x = x + self.c_proj(context)
        return x + self.mlp_proj(torch.nn.functional.gelu(self.c_fc(self.ln_2(x))))


class TransposePool(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(64, 128, 3, padding=1)
        self.fc = torch.nn.Linear(128, 10)

    def forward(self, x):  # x: batch x 32 positions x 64 features
        y = self.conv(x.transpose(1, 2))
        return self.fc(torch.nn.functional.adaptive_avg_pool1d(y, 1).flatten(1))


MODELS = ["resnet18", "vgg16", "bert_mini", "dynamic_seq", "mha", "encoder_layer", "gpt_block", "transpose_pool"]


def with_softmax(model):
    return torch.nn.Sequential(model, torch.nn.Softmax(dim=1)).eval()


def export(model, inputs, names, path, export_params=True, dynamic_axes=None):
    torch.onnx.export(model, inputs, path, opset_version=OPSET, input_names=names,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False,
                      export_params=export_params, dynamic_axes=dynamic_axes)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out_dir = argv[1]
    wanted = argv[2:] or MODELS
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    warnings.filterwarnings("ignore")  # the tracer's notes on Python integers taken from shapes
    image = torch.randn(1, 3, 224, 224)
    for name in wanted:
        path = os.path.join(out_dir, name + ".onnx")
        if name == "resnet18":
            export(with_softmax(torchvision.models.resnet18(weights=None)), (image,), ["data"], path)
        elif name == "vgg16":
            export(with_softmax(torchvision.models.vgg16(weights=None)), (image,), ["data"], path,
                   export_params=False)
        elif name == "bert_mini":
            seq = 128
            ids = (torch.randint(0, 30522, (1, seq)), torch.arange(seq).unsqueeze(0), torch.zeros(1, seq, dtype=torch.long))
            export(BertMini().eval(), ids, ["tokens", "positions", "segments"], path)
        elif name == "dynamic_seq":
            export(torch.nn.Linear(8, 16).eval(), (torch.randn(1, 4, 8),), ["x"], path,
                   dynamic_axes={"x": {0: "batch", 1: "seq"}})
        elif name == "mha":
            export(SelfAttention().eval(), (torch.randn(1, 64, 128),), ["x"], path)
        elif name == "encoder_layer":
            layer = torch.nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, batch_first=True)
            export(layer.eval(), (torch.randn(1, 64, 128),), ["x"], path)
        elif name == "gpt_block":
            export(GptBlock().eval(), (torch.randn(1, 64, 128),), ["x"], path)
        elif name == "transpose_pool":
            export(TransposePool().eval(), (torch.randn(1, 32, 64),), ["x"], path)
        else:
            sys.exit(f"export_test_models.py: unknown model '{name}' (allowed: {', '.join(MODELS)})")
        print(path)


if __name__ == "__main__":
    main(sys.argv)
