#pragma once
// The cases of tests/python/hf_model_reference.py (its cases()), shared by the tests that compare
// Strata's backbones with transformers on the CPU (model_reference_test.cpp) and on CUDA
// (cuda_backbone_reference_test.cpp); both check that the script lists the same.

#include <string>
#include <vector>

namespace strata::testing {

inline const std::vector<std::string> kHfReferenceCases = {"llama_gqa_llama3_tied",
                                                           "llama_linear_biases_legacy_config",
                                                           "qwen2_bias",
                                                           "qwen3_qk_norm",
                                                           "gpt2_prefixed",
                                                           "gpt2_bare",
                                                           "neox_parallel",
                                                           "neox_sequential_legacy",
                                                           "gemma3_sliding_gqa_tied",
                                                           "gemma3_softcap_legacy_config"};

}  // namespace strata::testing
