#!/usr/bin/env python3
"""Writes the two multi-modal face anti-spoofing workloads of seed 004's Table IV (MARS vs H2H):
workloads/examples/casia_surf.yaml and workloads/examples/facebagnet.yaml.

Both are three-stream networks (RGB, depth and infrared faces), each stream a ResNet-style
backbone up to its third stage, the streams' features concatenated and two more stages shared,
as the models' papers describe them. What the seeds do not give is assumed and said in each file's
header. Usage: scripts/make_face_antispoofing_workloads.py [OUT_DIR] (default workloads/examples).
"""
import os
import sys

import script_help  # scripts/ is on sys.path: the script's own folder

script_help.answer_help(__doc__)

MODALITIES = ["rgb", "depth", "ir"]


class Net:
    def __init__(self):
        self.lines = []

    def add(self, **layer):
        parts = []
        for key, value in layer.items():
            if isinstance(value, list):
                value = "[" + ", ".join(str(v) for v in value) + "]"
            elif isinstance(value, bool):
                value = "true" if value else "false"
            parts.append(f"{key}: {value}")
        self.lines.append("  - {" + ", ".join(parts) + "}")
        return layer["name"]

    def comment(self, text):
        self.lines.append(f"  # {text}")

    def conv_bn_relu(self, name, x, out, kernel, stride=1, groups=1, relu=True):
        pad = kernel // 2
        kw = dict(name=name, kind="conv", input=x, out_channels=out, kernel=kernel)
        if stride != 1:
            kw["stride"] = stride
        if pad:
            kw["padding"] = pad
        if groups != 1:
            kw["groups"] = groups
        kw["bias"] = False
        self.add(**kw)
        y = self.add(name=f"{name}_bn", kind="batch_norm", input=name)
        if relu:
            y = self.add(name=f"{name}_relu", kind="activation", input=y)
        return y

    def basic_block(self, prefix, x, out, stride, project):
        """ResNet-18's basic block: two 3x3 convolutions and a shortcut (1x1 projection when the
        shape changes)."""
        y = self.conv_bn_relu(f"{prefix}_conv1", x, out, 3, stride)
        y = self.conv_bn_relu(f"{prefix}_conv2", y, out, 3, relu=False)
        if project:
            x = self.conv_bn_relu(f"{prefix}_down", x, out, 1, stride, relu=False)
        s = self.add(name=f"{prefix}_add", kind="add", inputs=[y, x])
        return self.add(name=f"{prefix}_relu", kind="activation", input=s)

    def resnext_block(self, prefix, x, out, stride, project, cardinality=32):
        """ResNeXt's block: 1x1 to the group width, a 3x3 grouped convolution, 1x1 out."""
        y = self.conv_bn_relu(f"{prefix}_conv1", x, out, 1)
        y = self.conv_bn_relu(f"{prefix}_conv2", y, out, 3, stride, groups=cardinality)
        y = self.conv_bn_relu(f"{prefix}_conv3", y, out, 1, relu=False)
        if project:
            x = self.conv_bn_relu(f"{prefix}_down", x, out, 1, stride, relu=False)
        s = self.add(name=f"{prefix}_add", kind="add", inputs=[y, x])
        return self.add(name=f"{prefix}_relu", kind="activation", input=s)

    def stage(self, prefix, x, block, out, stride, first_projects, blocks=2):
        for b in range(blocks):
            x = block(f"{prefix}_{b}", x, out, stride if b == 0 else 1, first_projects and b == 0)
        return x


def three_streams(stream_comment, stem, block, fuse_comment):
    """Both models' shape: per modality a stem and the res2, res3 stages of `block`; the streams'
    features concatenated; the shared res4, res5, global pooling and a 2-way classifier."""
    n = Net()
    feats = []
    for m in MODALITIES:
        n.comment(f"{m} stream: {stream_comment}")
        x = stem(n, m)
        x = n.stage(f"{m}_res2", x, block(n), 64, 1, False)
        x = n.stage(f"{m}_res3", x, block(n), 128, 2, True)
        feats.append(x)
    n.comment(f"fusion: the three streams' res3 features concatenated ({fuse_comment})")
    x = n.add(name="fuse", kind="concat", inputs=feats)
    x = n.stage("res4", x, block(n), 256, 2, True)
    x = n.stage("res5", x, block(n), 512, 2, True)
    x = n.add(name="gap", kind="pool", input=x, op="avg", **{"global": True})
    x = n.add(name="flat", kind="flatten", input=x)
    n.add(name="fc", kind="fc", input=x, out_features=2)
    return n


def casia_surf():
    def stem(n, m):  # ResNet-18's res1: 7x7 stride 2 and a 3x3 stride-2 max pool
        x = n.conv_bn_relu(f"{m}_conv1", m, 64, 7, 2)
        return n.add(name=f"{m}_pool1", kind="pool", input=x, op="max", kernel=3, stride=2, padding=1)

    return three_streams("ResNet-18 res1-res3", stem, lambda n: n.basic_block, "the SE re-weighting left out")


def facebagnet():
    def stem(n, m):  # a 3x3 stem without downsampling (the patch is small)
        return n.conv_bn_relu(f"{m}_conv1", m, 64, 3)

    return three_streams("a ResNeXt-18-style backbone (cardinality 32), res1-res3, on a 48 x 48 patch", stem,
                         lambda n: n.resnext_block, "modal feature erasing is training-only")


CASIA_HEADER = """\
# CASIA-SURF's multi-modal baseline (Zhang et al., "CASIA-SURF: A large-scale multi-modal benchmark
# for face anti-spoofing", IEEE TBIOM 2(2), 2020; seed 004's [17]), one of Table IV's two models.
# Generated by scripts/make_face_antispoofing_workloads.py; edit that, not this file.
#
# From the model's paper: three streams (RGB, depth, IR), each ResNet-18's res1-res3; the streams'
# features fused by concatenation after res3; res4, res5, global average pooling and a 2-way
# classifier (real / fake) shared.
# Assumed (ours): 112 x 112 x 3 inputs per modality (depth and IR replicated to 3 channels); the
# squeeze-and-excitation re-weighting of each stream before the concatenation is left out (a
# channel-wise scale: a few thousand MACs, and the workload format has no broadcast multiply).
name: casia_surf
description: "CASIA-SURF baseline: 3 ResNet-18 streams (res1-res3) on 112x112, concat, res4-res5, 2 classes (seed 004 Table IV)"
"""

FACEBAG_HEADER = """\
# FaceBagNet (Shen et al., "FaceBagNet: Bag-of-local-features model for multi-modal face
# anti-spoofing", CVPR Workshops 2019; seed 004's [18]), the other model of Table IV.
# Generated by scripts/make_face_antispoofing_workloads.py; edit that, not this file.
#
# From the model's paper: patch-based, three modality streams (RGB, depth, IR) of a ResNeXt
# backbone, fused by concatenation in the middle of the network, then shared stages and a 2-way
# classifier; random modal feature erasing during training (nothing at inference).
# Assumed (ours): one 48 x 48 x 3 patch per modality; ResNeXt blocks of cardinality 32 with the group
# width equal to the block's output channels (64, 128, 256, 512), two blocks per stage, a 3 x 3 stem
# without downsampling (the patch is small); fusion after the third stage as in CASIA-SURF.
name: facebagnet
description: "FaceBagNet: 3 ResNeXt streams (res1-res3) on 48x48 patches, concat, res4-res5, 2 classes (seed 004 Table IV)"
"""


def write(path, header, size, net):
    text = header + "inputs:\n"
    for m in MODALITIES:
        text += f"  - {{name: {m}, shape: [3, {size}, {size}]}}\n"
    text += "layers:\n" + "\n".join(net.lines) + "\n"
    with open(path, "w") as f:
        f.write(text)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "workloads/examples"
    write(os.path.join(out, "casia_surf.yaml"), CASIA_HEADER, 112, casia_surf())
    write(os.path.join(out, "facebagnet.yaml"), FACEBAG_HEADER, 48, facebagnet())


if __name__ == "__main__":
    main()
