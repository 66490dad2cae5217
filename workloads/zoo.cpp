#include "workloads/zoo.hpp"

#include "sim/common/text.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/op_graphs.hpp"
#include "workloads/transformer_presets.hpp"

namespace partsim::workloads {
namespace {

using Act = ActivationFn;

// ---------------------------------------------------------------- LeNet-5 (MNIST 28x28x1)
// LeCun et al. 1998 with ReLU and max pooling (the common modern form): 61,706 parameters.
Graph lenet(std::int64_t batch) {
  NetBuilder b("lenet", "LeNet-5 on MNIST 28x28x1");
  std::string x = b.input("data", {1, 28, 28});
  x = b.activation("relu1", b.conv("conv1", x, 6, 5, 1, 2));
  x = b.pool("pool1", x, PoolOp::max, 2, 2);
  x = b.activation("relu2", b.conv("conv2", x, 16, 5));
  x = b.pool("pool2", x, PoolOp::max, 2, 2);
  x = b.flatten("flatten", x);
  x = b.activation("relu3", b.fc("fc1", x, 120));
  x = b.activation("relu4", b.fc("fc2", x, 84));
  b.softmax("prob", b.fc("fc3", x, 10));
  return b.build(batch);
}

// ---------------------------------------------------------------- AlexNet (torchvision form)
// Krizhevsky et al. 2012, single-tower channels 64-192-384-256-256 as in torchvision: 61.10 M
// parameters (seed 004 Table III: 61.1 M, 727 M MACs).
Graph alexnet(std::int64_t batch) {
  NetBuilder b("alexnet", "AlexNet, 224x224x3, 1000 classes");
  std::string x = b.input("data", {3, 224, 224});
  x = b.activation("relu1", b.conv("conv1", x, 64, 11, 4, 2));
  x = b.pool("pool1", x, PoolOp::max, 3, 2);
  x = b.activation("relu2", b.conv("conv2", x, 192, 5, 1, 2));
  x = b.pool("pool2", x, PoolOp::max, 3, 2);
  x = b.activation("relu3", b.conv("conv3", x, 384, 3, 1, 1));
  x = b.activation("relu4", b.conv("conv4", x, 256, 3, 1, 1));
  x = b.activation("relu5", b.conv("conv5", x, 256, 3, 1, 1));
  x = b.pool("pool5", x, PoolOp::max, 3, 2);
  x = b.flatten("flatten", x);
  x = b.activation("relu6", b.fc("fc6", x, 4096));
  x = b.activation("relu7", b.fc("fc7", x, 4096));
  b.softmax("prob", b.fc("fc8", x, 1000));
  return b.build(batch);
}

// ---------------------------------------------------------------- VGG (Simonyan & Zisserman)
// convs_per_stage: conv layers in each of the 5 stages (64, 128, 256, 512, 512 channels).
Graph vgg(const std::string& name, std::vector<int> convs_per_stage, std::int64_t batch) {
  NetBuilder b(name, "");
  std::string x = b.input("data", {3, 224, 224});
  const std::int64_t widths[5] = {64, 128, 256, 512, 512};
  for (int stage = 0; stage < 5; ++stage) {
    for (int i = 1; i <= convs_per_stage[static_cast<size_t>(stage)]; ++i) {
      std::string id = std::to_string(stage + 1) + "_" + std::to_string(i);
      x = b.activation("relu" + id, b.conv("conv" + id, x, widths[stage], 3, 1, 1));
    }
    x = b.pool("pool" + std::to_string(stage + 1), x, PoolOp::max, 2, 2);
  }
  x = b.flatten("flatten", x);
  x = b.activation("relu6", b.fc("fc6", x, 4096));
  x = b.activation("relu7", b.fc("fc7", x, 4096));
  b.softmax("prob", b.fc("fc8", x, 1000));
  return b.build(batch);
}

// ---------------------------------------------------------------- ResNet (He et al. 2016)
// torchvision v1.5 form: the stride sits on the 3x3 conv of a bottleneck; convs have no bias and
// are followed by batch-norm; 1x1 projection shortcuts where the shape changes.
std::string basic_block(NetBuilder& b, const std::string& p, std::string x, std::int64_t in_c, std::int64_t planes,
                        std::int64_t stride) {
  std::string y = b.conv_bn_relu(p + "_conv1", x, planes, 3, stride, 1);
  y = b.batch_norm(p + "_conv2_bn", b.conv(p + "_conv2", y, planes, 3, 1, 1, false));
  if (stride != 1 || in_c != planes)
    x = b.batch_norm(p + "_down_bn", b.conv(p + "_down", x, planes, 1, stride, 0, false));
  return b.activation(p + "_relu", b.add(p + "_add", {y, x}));
}

std::string bottleneck(NetBuilder& b, const std::string& p, std::string x, std::int64_t in_c, std::int64_t planes,
                       std::int64_t width, std::int64_t stride) {
  const std::int64_t out_c = planes * 4;
  std::string y = b.conv_bn_relu(p + "_conv1", x, width, 1);
  y = b.conv_bn_relu(p + "_conv2", y, width, 3, stride, 1);
  y = b.batch_norm(p + "_conv3_bn", b.conv(p + "_conv3", y, out_c, 1, 1, 0, false));
  if (stride != 1 || in_c != out_c)
    x = b.batch_norm(p + "_down_bn", b.conv(p + "_down", x, out_c, 1, stride, 0, false));
  return b.activation(p + "_relu", b.add(p + "_add", {y, x}));
}

// width_factor 2 gives Wide ResNet-50-2 (Zagoruyko & Komodakis): wider 3x3 and reducing 1x1 convs.
Graph resnet(const std::string& name, bool bottlenecks, std::vector<int> blocks, std::int64_t width_factor,
             std::int64_t batch) {
  NetBuilder b(name, "");
  std::string x = b.input("data", {3, 224, 224});
  x = b.conv_bn_relu("conv1", x, 64, 7, 2, 3);
  x = b.pool("pool1", x, PoolOp::max, 3, 2, 1);
  std::int64_t in_c = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const std::int64_t planes = 64LL << stage;
    for (int i = 0; i < blocks[static_cast<size_t>(stage)]; ++i) {
      const std::int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      const std::string p = "layer" + std::to_string(stage + 1) + "_" + std::to_string(i);
      if (bottlenecks) {
        x = bottleneck(b, p, x, in_c, planes, planes * width_factor, stride);
        in_c = planes * 4;
      } else {
        x = basic_block(b, p, x, in_c, planes, stride);
        in_c = planes;
      }
    }
  }
  x = b.flatten("flatten", b.global_pool("avgpool", x, PoolOp::avg));
  b.softmax("prob", b.fc("fc", x, 1000));
  return b.build(batch);
}

// ---------------------------------------------------------------- Inception-v3 (Szegedy et al. 2016)
// torchvision's layer list without the auxiliary classifier: 23.83 M parameters.
std::string inception_a(NetBuilder& b, const std::string& p, const std::string& x, std::int64_t pool_features) {
  std::string b1 = b.conv_bn_relu(p + "_1x1", x, 64, 1);
  std::string b5 = b.conv_bn_relu(p + "_5x5_2", b.conv_bn_relu(p + "_5x5_1", x, 48, 1), 64, 5, 1, 2);
  std::string b3 = b.conv_bn_relu(p + "_3x3dbl_1", x, 64, 1);
  b3 = b.conv_bn_relu(p + "_3x3dbl_2", b3, 96, 3, 1, 1);
  b3 = b.conv_bn_relu(p + "_3x3dbl_3", b3, 96, 3, 1, 1);
  std::string bp = b.conv_bn_relu(p + "_pool_proj", b.pool(p + "_pool", x, PoolOp::avg, 3, 1, 1), pool_features, 1);
  return b.concat(p + "_concat", {b1, b5, b3, bp});
}

std::string inception_b(NetBuilder& b, const std::string& p, const std::string& x) {
  std::string b3 = b.conv_bn_relu(p + "_3x3", x, 384, 3, 2);
  std::string bd = b.conv_bn_relu(p + "_3x3dbl_1", x, 64, 1);
  bd = b.conv_bn_relu(p + "_3x3dbl_2", bd, 96, 3, 1, 1);
  bd = b.conv_bn_relu(p + "_3x3dbl_3", bd, 96, 3, 2);
  std::string bp = b.pool(p + "_pool", x, PoolOp::max, 3, 2);
  return b.concat(p + "_concat", {b3, bd, bp});
}

// A 1xk or kx1 BasicConv2d with "same" padding.
std::string conv_line(NetBuilder& b, const std::string& name, const std::string& x, std::int64_t out_c, bool row,
                      std::int64_t k) {
  std::string y = row ? b.conv_rect(name, x, out_c, 1, k, 0, k / 2, false) : b.conv_rect(name, x, out_c, k, 1, k / 2, 0, false);
  return b.activation(name + "_relu", b.batch_norm(name + "_bn", y));
}

std::string inception_c(NetBuilder& b, const std::string& p, const std::string& x, std::int64_t c7) {
  std::string b1 = b.conv_bn_relu(p + "_1x1", x, 192, 1);
  std::string b7 = b.conv_bn_relu(p + "_7x7_1", x, c7, 1);
  b7 = conv_line(b, p + "_7x7_2", b7, c7, true, 7);
  b7 = conv_line(b, p + "_7x7_3", b7, 192, false, 7);
  std::string bd = b.conv_bn_relu(p + "_7x7dbl_1", x, c7, 1);
  bd = conv_line(b, p + "_7x7dbl_2", bd, c7, false, 7);
  bd = conv_line(b, p + "_7x7dbl_3", bd, c7, true, 7);
  bd = conv_line(b, p + "_7x7dbl_4", bd, c7, false, 7);
  bd = conv_line(b, p + "_7x7dbl_5", bd, 192, true, 7);
  std::string bp = b.conv_bn_relu(p + "_pool_proj", b.pool(p + "_pool", x, PoolOp::avg, 3, 1, 1), 192, 1);
  return b.concat(p + "_concat", {b1, b7, bd, bp});
}

std::string inception_d(NetBuilder& b, const std::string& p, const std::string& x) {
  std::string b3 = b.conv_bn_relu(p + "_3x3_2", b.conv_bn_relu(p + "_3x3_1", x, 192, 1), 320, 3, 2);
  std::string b7 = b.conv_bn_relu(p + "_7x7x3_1", x, 192, 1);
  b7 = conv_line(b, p + "_7x7x3_2", b7, 192, true, 7);
  b7 = conv_line(b, p + "_7x7x3_3", b7, 192, false, 7);
  b7 = b.conv_bn_relu(p + "_7x7x3_4", b7, 192, 3, 2);
  std::string bp = b.pool(p + "_pool", x, PoolOp::max, 3, 2);
  return b.concat(p + "_concat", {b3, b7, bp});
}

std::string inception_e(NetBuilder& b, const std::string& p, const std::string& x) {
  std::string b1 = b.conv_bn_relu(p + "_1x1", x, 320, 1);
  std::string b3 = b.conv_bn_relu(p + "_3x3_1", x, 384, 1);
  b3 = b.concat(p + "_3x3_concat", {conv_line(b, p + "_3x3_2a", b3, 384, true, 3),
                                     conv_line(b, p + "_3x3_2b", b3, 384, false, 3)});
  std::string bd = b.conv_bn_relu(p + "_3x3dbl_1", x, 448, 1);
  bd = b.conv_bn_relu(p + "_3x3dbl_2", bd, 384, 3, 1, 1);
  bd = b.concat(p + "_3x3dbl_concat", {conv_line(b, p + "_3x3dbl_3a", bd, 384, true, 3),
                                        conv_line(b, p + "_3x3dbl_3b", bd, 384, false, 3)});
  std::string bp = b.conv_bn_relu(p + "_pool_proj", b.pool(p + "_pool", x, PoolOp::avg, 3, 1, 1), 192, 1);
  return b.concat(p + "_concat", {b1, b3, bd, bp});
}

Graph inception_v3(std::int64_t batch) {
  NetBuilder b("inception_v3", "");
  std::string x = b.input("data", {3, 299, 299});
  x = b.conv_bn_relu("conv1a_3x3", x, 32, 3, 2);        // 149
  x = b.conv_bn_relu("conv2a_3x3", x, 32, 3);           // 147
  x = b.conv_bn_relu("conv2b_3x3", x, 64, 3, 1, 1);     // 147
  x = b.pool("pool1", x, PoolOp::max, 3, 2);            // 73
  x = b.conv_bn_relu("conv3b_1x1", x, 80, 1);           // 73
  x = b.conv_bn_relu("conv4a_3x3", x, 192, 3);          // 71
  x = b.pool("pool2", x, PoolOp::max, 3, 2);            // 35
  x = inception_a(b, "mixed5b", x, 32);                 // 256 x 35 x 35
  x = inception_a(b, "mixed5c", x, 64);                 // 288
  x = inception_a(b, "mixed5d", x, 64);                 // 288
  x = inception_b(b, "mixed6a", x);                     // 768 x 17 x 17
  x = inception_c(b, "mixed6b", x, 128);
  x = inception_c(b, "mixed6c", x, 160);
  x = inception_c(b, "mixed6d", x, 160);
  x = inception_c(b, "mixed6e", x, 192);
  x = inception_d(b, "mixed7a", x);                     // 1280 x 8 x 8
  x = inception_e(b, "mixed7b", x);                     // 2048 x 8 x 8
  x = inception_e(b, "mixed7c", x);
  x = b.flatten("flatten", b.global_pool("avgpool", x, PoolOp::avg));
  b.softmax("prob", b.fc("fc", x, 1000));
  return b.build(batch);
}

// ---------------------------------------------------------------- GNMT (Wu et al. 2016; seed 003)
// 8 encoder + 8 decoder LSTM layers of 1024 units, the first encoder layer bidirectional (its two
// 1024-unit directions concatenated), residual connections from the third layer on, attention from
// the first decoder layer over the encoder output whose context is concatenated to the inputs of
// decoder layers 2-8 and to the classifier; 32k word-piece vocabulary; 128 timesteps on both sides.
Graph gnmt(std::int64_t batch) {
  constexpr std::int64_t H = 1024, V = 32000, T = 128;
  NetBuilder b("gnmt", "");
  std::string src = b.embedding("enc_embed", b.input("src_tokens", {1, T, 1}), V, H);
  std::string x = b.lstm("enc_lstm1", src, H, /*bidirectional=*/true);  // 2048 x T
  x = b.lstm("enc_lstm2", x, H);
  for (int l = 3; l <= 8; ++l) {
    const std::string n = "enc_lstm" + std::to_string(l);
    x = b.add(n + "_res", {b.lstm(n, x, H), x});
  }
  const std::string memory = x;
  std::string y = b.embedding("dec_embed", b.input("tgt_tokens", {1, T, 1}), V, H);
  y = b.lstm("dec_lstm1", y, H);
  const std::string context = b.attention("dec_attention", {y, memory}, 1);
  for (int l = 2; l <= 8; ++l) {
    const std::string n = "dec_lstm" + std::to_string(l);
    std::string out = b.lstm(n, b.concat(n + "_in", {y, context}), H);
    y = l >= 3 ? b.add(n + "_res", {out, y}) : out;
  }
  y = b.fc("classifier", b.concat("classifier_in", {y, context}), V);
  b.softmax("prob", y);
  return b.build(batch);
}

// ---------------------------------------------------------------- BERT (Devlin et al. 2019)
// Encoder only (no pooler, no pre-training heads): word, position and segment embeddings, then
// `layers` blocks of self-attention + residual + layer-norm and a 4x GELU feed-forward + residual +
// layer-norm. Sequence length 128 (pre-training phase 1).
Graph bert(const std::string& name, std::int64_t layers, std::int64_t E, std::int64_t heads, std::int64_t batch) {
  NetBuilder b(name, "");
  std::string x = bert_embeddings(b, E);
  for (std::int64_t l = 1; l <= layers; ++l) {
    const std::string p = "layer" + std::to_string(l);
    std::string a = b.attention(p + "_attention", {x}, heads);
    x = b.layer_norm(p + "_attention_norm", b.add(p + "_attention_res", {a, x}));
    std::string f = b.activation(p + "_ffn_gelu", b.fc(p + "_ffn1", x, 4 * E), Act::gelu);
    f = b.fc(p + "_ffn2", f, E);
    x = b.layer_norm(p + "_ffn_norm", b.add(p + "_ffn_res", {f, x}));
  }
  return b.build(batch);
}

}  // namespace

const std::vector<ZooEntry>& zoo() {
  static const std::vector<ZooEntry> entries = {
      {"lenet", "LeNet-5 on MNIST 28x28x1, 10 classes (61.7 k params)", lenet},
      {"alexnet", "AlexNet 224x224, 1000 classes (61.10 M params, 714 M MACs)", alexnet},
      {"vgg11", "VGG-11 224x224, 1000 classes (132.9 M params)",
       [](std::int64_t n) { return vgg("vgg11", {1, 1, 2, 2, 2}, n); }},
      {"vgg13", "VGG-13 224x224, 1000 classes (133.0 M params)",
       [](std::int64_t n) { return vgg("vgg13", {2, 2, 2, 2, 2}, n); }},
      {"vgg16", "VGG-16 224x224, 1000 classes (138.36 M params, 15.5 G MACs)",
       [](std::int64_t n) { return vgg("vgg16", {2, 2, 3, 3, 3}, n); }},
      {"vgg19", "VGG-19 224x224, 1000 classes (143.67 M params)",
       [](std::int64_t n) { return vgg("vgg19", {2, 2, 4, 4, 4}, n); }},
      {"resnet18", "ResNet-18 224x224, basic blocks [2,2,2,2] (11.69 M params)",
       [](std::int64_t n) { return resnet("resnet18", false, {2, 2, 2, 2}, 1, n); }},
      {"resnet34", "ResNet-34 224x224, basic blocks [3,4,6,3] (21.80 M params, 3.6 G MACs)",
       [](std::int64_t n) { return resnet("resnet34", false, {3, 4, 6, 3}, 1, n); }},
      {"resnet50", "ResNet-50 224x224, bottlenecks [3,4,6,3] (25.56 M params)",
       [](std::int64_t n) { return resnet("resnet50", true, {3, 4, 6, 3}, 1, n); }},
      {"resnet101", "ResNet-101 224x224, bottlenecks [3,4,23,3] (44.55 M params, 7.8 G MACs)",
       [](std::int64_t n) { return resnet("resnet101", true, {3, 4, 23, 3}, 1, n); }},
      {"wrn50_2", "Wide ResNet-50-2 224x224, bottlenecks twice as wide (68.88 M params, 11.4 G MACs)",
       [](std::int64_t n) { return resnet("wrn50_2", true, {3, 4, 6, 3}, 2, n); }},
      {"inception_v3", "Inception-v3 299x299, no auxiliary head (23.83 M params)", inception_v3},
      {"gnmt", "GNMT: 8+8 LSTM layers of 1024, bidirectional first encoder layer, attention, 128 timesteps",
       gnmt},
      {"bert_base", "BERT-base encoder: 12 layers, width 768, 12 heads, sequence 128 (108.9 M params)",
       [](std::int64_t n) { return bert("bert_base", 12, 768, 12, n); }},
      {"bert_large", "BERT-large encoder: 24 layers, width 1024, 16 heads, sequence 128 (334.1 M params)",
       [](std::int64_t n) { return bert("bert_large", 24, 1024, 16, n); }},
      {"bert_base_ops", "BERT-base at operation granularity (MCM paper): 224 nodes, matmuls, softmax, reshapes",
       [](std::int64_t n) { return bert_ops("bert_base_ops", 12, 768, 12, n); }},
      {"bert_large_ops", "BERT-large at operation granularity (MCM paper): 440 nodes, matmuls, softmax, reshapes",
       [](std::int64_t n) { return bert_ops("bert_large_ops", 24, 1024, 16, n); }},
      // Decoder-only language models from the transformer presets (transformer_presets.hpp).
      {"gpt2_small", "GPT-2 small (preset gpt): 12 layers, width 768, 12 heads, sequence 1024 (124.4 M + 38.6 M head)",
       [](std::int64_t n) { return build_preset("gpt", {{"layers", 12}, {"width", 768}, {"heads", 12}}, "gpt2_small", n); }},
      {"gpt3_175b", "GPT-3 175B (preset gpt): 96 layers, width 12288, 96 heads, sequence 2048",
       [](std::int64_t n) {
         return build_preset("gpt", {{"layers", 96}, {"width", 12288}, {"heads", 96}, {"sequence", 2048}}, "gpt3_175b", n);
       }},
      {"llama_7b", "Llama 7B (preset llama): 32 layers, width 4096, 32 heads, SwiGLU 11008, sequence 2048 (6.74 B)",
       [](std::int64_t n) { return build_preset("llama", {{"layers", 32}, {"width", 4096}, {"heads", 32}}, "llama_7b", n); }},
      {"llama2_70b", "Llama 2 70B (preset llama): 80 layers, width 8192, 64 heads, 8 kv heads, SwiGLU 28672, sequence 4096",
       [](std::int64_t n) {
         return build_preset("llama",
                             {{"layers", 80}, {"width", 8192}, {"heads", 64}, {"kv_heads", 8}, {"ffn", 28672}, {"sequence", 4096}},
                             "llama2_70b", n);
       }},
  };
  return entries;
}

std::string zoo_names() {
  return join(zoo(), [](const ZooEntry& e) { return e.name; });
}

bool in_zoo(std::string_view name) {
  for (const ZooEntry& e : zoo())
    if (e.name == name) return true;
  return false;
}

Graph build_zoo(std::string_view name, std::int64_t batch) {
  for (const ZooEntry& e : zoo())
    if (e.name == name) {
      Graph graph = e.build(batch);
      graph.set_description(e.description);
      return graph;
    }
  throw UnknownNameError("workload", std::string(name), zoo_names());
}

}  // namespace partsim::workloads
