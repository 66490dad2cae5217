#pragma once
// The ONNX operators the importer (onnx_workload.cpp) maps to partsim layers, by what decides their
// layer kind: whether they compute on image tensors, how many data inputs an element-wise one has,
// and the whole list for the message that names an operator it cannot map.

#include <set>
#include <string>

namespace partsim::workloads::onnx_import {

// Operators that compute on image tensors (their data input and output are N C H W).
bool is_spatial(const std::string& op);

// One-input element-wise operators: `activation` (the first four by name, the rest `elementwise`).
const std::set<std::string>& unary_ops();

// Two-or-more-input element-wise operators: `add` between equal shapes, `elementwise` with a constant.
const std::set<std::string>& binary_ops();

// Every operator the importer maps, comma-separated and sorted (for the message naming one it cannot).
std::string supported_ops();

}  // namespace partsim::workloads::onnx_import
