// AccPar cost model (seed 000 §4) on hand-computed numbers.
//
// The two-layer FC toy used throughout: B = 4; layer 1: D_i = 3, D_o = 5; layer 2: D_i = 5, D_o = 4.
//   A(F_1) = 4*3 = 12, A(W_1) = 3*5 = 15, A(F_2) = 4*5 = 20, A(W_2) = 5*4 = 20, A(F_3) = 4*4 = 16.
// Partition ratio alpha = 0.25 (side a), beta = 0.75 (side b).

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "sim/planners/accpar/cost_model.hpp"

using namespace partsim::accpar;

namespace {
LayerDims fc(double B, double D_i, double D_o) {
  LayerDims d;
  d.B = B;
  d.D_i = D_i;
  d.D_o = D_o;
  return d;
}
const LayerDims kFc1 = fc(4, 3, 5);
constexpr double kAlpha = 0.25;
}  // namespace

TEST(Table4, IntraLayerTraining) {
  // Type-I: A(W_1) = 15; Type-II: A(F_2) = 20; Type-III: A(E_1) = A(F_1) = 12.
  EXPECT_DOUBLE_EQ(intra_layer_elements(Type::I, kFc1, Mode::training), 15);
  EXPECT_DOUBLE_EQ(intra_layer_elements(Type::II, kFc1, Mode::training), 20);
  EXPECT_DOUBLE_EQ(intra_layer_elements(Type::III, kFc1, Mode::training), 12);
}

TEST(Table4, IntraLayerInferenceHasOnlyTheForwardPartialSums) {
  // No gradient phase (Type-I) and no backward phase (Type-III) in inference.
  EXPECT_DOUBLE_EQ(intra_layer_elements(Type::I, kFc1, Mode::inference), 0);
  EXPECT_DOUBLE_EQ(intra_layer_elements(Type::II, kFc1, Mode::inference), 20);
  EXPECT_DOUBLE_EQ(intra_layer_elements(Type::III, kFc1, Mode::inference), 0);
}

TEST(Table4, IndependentOfAlpha) {
  // Table 4's note: the partial sums are accumulated locally, the whole tensor is exchanged.
  EXPECT_DOUBLE_EQ(intra_layer_elements(Type::I, split_dims(kFc1, Type::II, 0.5), Mode::training), 15 * 0.5);
}

// Table 5 between layer 1 and layer 2: the tensor F_2 = E_2 has 20 elements.
// Side a (alpha = 0.25): alpha*beta*(A(F)+A(E)) = 0.1875 * 40 = 7.5; beta*A = 0.75 * 20 = 15.
// Side b (beta = 0.75): alpha*beta*(A(F)+A(E)) = 7.5; alpha*A = 0.25 * 20 = 5.
struct Table5Case {
  Type from, to;
  double side_a, side_b;
};

const char* table5_type_name(Type t) { return t == Type::I ? "I" : t == Type::II ? "II" : "III"; }

void PrintTo(const Table5Case& c, std::ostream* os) { *os << table5_type_name(c.from) << " -> " << table5_type_name(c.to); }

// "I_to_II": the test's name in ctest and gtest output.
std::string table5_case_name(const ::testing::TestParamInfo<Table5Case>& info) {
  return std::string(table5_type_name(info.param.from)) + "_to_" + table5_type_name(info.param.to);
}

class Table5 : public ::testing::TestWithParam<Table5Case> {};

TEST_P(Table5, InterLayerElements) {
  const auto c = GetParam();
  EXPECT_DOUBLE_EQ(inter_layer_elements(c.from, c.to, 20, kAlpha, Side::a, Mode::training), c.side_a);
  EXPECT_DOUBLE_EQ(inter_layer_elements(c.from, c.to, 20, kAlpha, Side::b, Mode::training), c.side_b);
}

INSTANTIATE_TEST_SUITE_P(AllNine, Table5,
                         ::testing::Values(Table5Case{Type::I, Type::I, 0, 0},         // (a)
                                           Table5Case{Type::I, Type::II, 7.5, 7.5},    // (b) ab(F+E)
                                           Table5Case{Type::I, Type::III, 15, 5},      // (c) bF
                                           Table5Case{Type::II, Type::I, 15, 5},       // (d) bE
                                           Table5Case{Type::II, Type::II, 15, 5},      // (e) bE
                                           Table5Case{Type::II, Type::III, 0, 0},      // (f)
                                           Table5Case{Type::III, Type::I, 7.5, 7.5},   // (g) ab(F+E)
                                           Table5Case{Type::III, Type::II, 0, 0},      // (h)
                                           Table5Case{Type::III, Type::III, 15, 5}),   // (i) bF
                         table5_case_name);

TEST(Table5Inference, OnlyTheForwardConversion) {
  // I->II: alpha*beta*A(F) = 0.1875*20 = 3.75; II->I: the E part only, so 0; I->III: beta*A(F) = 15.
  EXPECT_DOUBLE_EQ(inter_layer_elements(Type::I, Type::II, 20, kAlpha, Side::a, Mode::inference), 3.75);
  EXPECT_DOUBLE_EQ(inter_layer_elements(Type::II, Type::I, 20, kAlpha, Side::a, Mode::inference), 0);
  EXPECT_DOUBLE_EQ(inter_layer_elements(Type::I, Type::III, 20, kAlpha, Side::a, Mode::inference), 15);
}

TEST(Table6, FcFlops) {
  // forward  A(F_2)(2 D_i - 1) = 20 * 5 = 100
  // backward A(E_1)(2 D_o - 1) = 12 * 9 = 108
  // gradient A(W_1)(2 B - 1)   = 15 * 7 = 105
  const auto f = table6_flops(kFc1);
  EXPECT_DOUBLE_EQ(f.forward, 100);
  EXPECT_DOUBLE_EQ(f.backward, 108);
  EXPECT_DOUBLE_EQ(f.gradient, 105);
  EXPECT_DOUBLE_EQ(mode_flops(f, Mode::training), 313);
  EXPECT_DOUBLE_EQ(mode_flops(f, Mode::inference), 100);
}

TEST(Table6, LessThanOneSamplePerDeviceCountsOnlyTheMultiplications) {
  // A batch of 8 split over 1024 devices leaves B = 1/128 per device. The weight gradient's
  // products then have P = B * S_out = 1/128 terms: 1/128 multiplications per weight and no
  // addition, A(W) * P = 15 / 128 (Table 6's A(W)(2B - 1) would be negative: 15 * -0.984).
  const LayerDims d = fc(1.0 / 128, 3, 5);
  const auto f = table6_flops(d);
  EXPECT_DOUBLE_EQ(f.gradient, 15.0 / 128);
  EXPECT_DOUBLE_EQ(f.forward, 5.0 / 128 * 5);          // A(F_2) = 5/128 outputs, P = 3: 2*3 - 1 = 5
  EXPECT_DOUBLE_EQ(f.backward, 2 * 5.0 / 128 * 3 - 3.0 / 128);  // linear in B: 27/128 > 0
}

TEST(Table6, ConvFlopsMultiplyByThe2dSizes) {
  // §4.3: B = 2, D_i = 3, D_o = 4, 5x5 maps (S = 25), 3x3 kernel (K = 9), stride 1.
  //   forward  A(F_out) = 2*4*25 = 200, P = D_i*K = 27:  200 * 53 = 10600
  //   backward A(E_in)  = 2*3*25 = 150, P = D_o*K = 36:  150 * 71 = 10650
  //   gradient A(W)     = 3*9*4  = 108, P = B*S_out = 50: 108 * 99 = 10692
  LayerDims d = fc(2, 3, 4);
  d.S_in = d.S_out = 25;
  d.K = 9;
  EXPECT_DOUBLE_EQ(d.A_W(), 108);
  const auto f = table6_flops(d);
  EXPECT_DOUBLE_EQ(f.forward, 10600);
  EXPECT_DOUBLE_EQ(f.backward, 10650);
  EXPECT_DOUBLE_EQ(f.gradient, 10692);
}

TEST(Eq7Eq8, Seconds) {
  // eq. 7: 1e8 elements * 2 bytes / 1e9 bytes/s = 0.2 s. eq. 8: 0.3 * 6e12 / 180e12 = 0.01 s.
  EXPECT_DOUBLE_EQ(e_cm(1e8, 2, 1e9), 0.2);
  EXPECT_DOUBLE_EQ(e_cp(0.3, 6e12, 180e12), 0.01);
}

TEST(Eq10, TwoUnequalDevices) {
  // TPU-v2 (c = 180 TFLOP/s, b = 1 GB/s) vs TPU-v3 (420 TFLOP/s, 2 GB/s); C = 6e12 FLOP,
  // a tensor of 1e8 bf16 elements (2e8 bytes):
  //   E_cp_a = 6e12/180e12 = 0.0333333 s, E_cm_a = 2e8/1e9 = 0.2 s  -> 0.2333333
  //   E_cp_b = 6e12/420e12 = 0.0142857 s, E_cm_b = 2e8/2e9 = 0.1 s  -> 0.1142857
  //   alpha = 0.1142857 / (0.2333333 + 0.1142857) = 0.328767
  const double ecp_a = e_cp(1, 6e12, 180e12), ecm_a = e_cm(1e8, 2, 1e9);
  const double ecp_b = e_cp(1, 6e12, 420e12), ecm_b = e_cm(1e8, 2, 2e9);
  const double alpha = alpha_eq10(ecp_a, ecm_a, ecp_b, ecm_b);
  EXPECT_NEAR(alpha, 0.328767, 1e-6);
  // Both sides then take 0.328767 * 0.2333333 = 0.0767123 s.
  EXPECT_NEAR(alpha * (ecp_a + ecm_a), 0.0767123, 1e-7);
  EXPECT_NEAR((1 - alpha) * (ecp_b + ecm_b), 0.0767123, 1e-7);
  EXPECT_DOUBLE_EQ(alpha_eq10(1, 0, 1, 0), 0.5);  // equal devices split evenly
  EXPECT_DOUBLE_EQ(alpha_eq10(0, 0, 0, 0), 0.5);  // nothing to balance
}

TEST(Splits, TypesSplitTheirDimension) {
  EXPECT_DOUBLE_EQ(split_dims(kFc1, Type::I, 0.25).B, 1);
  EXPECT_DOUBLE_EQ(split_dims(kFc1, Type::II, 0.25).D_i, 0.75);
  EXPECT_DOUBLE_EQ(split_dims(kFc1, Type::III, 0.25).D_o, 1.25);
}
