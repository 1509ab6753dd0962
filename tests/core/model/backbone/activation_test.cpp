// The MLP activations written over their input in inference (activation.h): the same bits as
// the functional form, in the input's own memory, and the functional form where autograd needs
// the input.

#include "model/backbone/activation.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace strata::model {
namespace {

const Activation kActivations[] = {Activation::Silu, Activation::GeluTanh, Activation::GeluErf,
                                   Activation::Relu};

at::Tensor someValues(int64_t seed) {
  at::manual_seed(uint64_t(seed));
  return at::randn({3, 5, 37}) * 4;
}

TEST(Activation, FreshFormIsTheSameBitsInTheInputsMemory) {
  for (const Activation activation : kActivations) {
    const at::Tensor x = someValues(1);
    const at::Tensor expected = activate(x, activation);
    at::Tensor fresh = x.clone();
    const void* memory = fresh.data_ptr();
    const at::Tensor result = activateFresh(fresh, activation);
    EXPECT_TRUE(at::equal(result, expected)) << int(activation);
    EXPECT_EQ(result.data_ptr(), memory) << int(activation);
  }
}

TEST(Activation, GatedProductIsTheSameBitsInTheGatesMemory) {
  for (const Activation activation : kActivations) {
    const at::Tensor gate = someValues(2), up = someValues(3);
    const at::Tensor expected = activate(gate, activation) * up;
    at::Tensor fresh = gate.clone();
    const void* memory = fresh.data_ptr();
    const at::Tensor result = gatedProduct(fresh, up, activation);
    EXPECT_TRUE(at::equal(result, expected)) << int(activation);
    EXPECT_EQ(result.data_ptr(), memory) << int(activation);
  }
}

TEST(Activation, KeepsTheInputWhereAGradientFlowsThroughIt) {
  for (const Activation activation : kActivations) {
    const at::Tensor gate = someValues(4).requires_grad_(true), up = someValues(5);
    const at::Tensor reference = gate.detach().clone().requires_grad_(true);
    const at::Tensor gateOut = gate * 1;  // a fresh result that needs a gradient
    const at::Tensor product = gatedProduct(gateOut, up, activation);
    EXPECT_TRUE(at::equal(gateOut, gate)) << "gatedProduct wrote over " << int(activation);
    (activate(reference, activation) * up).sum().backward();
    product.sum().backward();
    ASSERT_TRUE(gate.grad().defined());
    EXPECT_TRUE(at::equal(gate.grad(), reference.grad())) << int(activation);

    const at::Tensor x = someValues(6).requires_grad_(true);
    const at::Tensor xReference = x.detach().clone().requires_grad_(true);
    const at::Tensor xOut = x * 1;
    activateFresh(xOut, activation).sum().backward();
    EXPECT_TRUE(at::equal(xOut, x)) << "activateFresh wrote over " << int(activation);
    activate(xReference, activation).sum().backward();
    ASSERT_TRUE(x.grad().defined()) << int(activation);
    EXPECT_TRUE(at::equal(x.grad(), xReference.grad())) << int(activation);
  }
}

}  // namespace
}  // namespace strata::model
