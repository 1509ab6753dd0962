#include "model/backbone/weight_layout.h"

#include <stdexcept>
#include <utility>

#include "io/arch/architecture_spec.h"

namespace strata::model {

namespace {

using B = BlockWeights;
using O = OuterWeights;

// Each role of io::BlockTensor / io::OuterTensor, the field that holds it.
at::Tensor B::*blockField(io::BlockTensor tensor) {
  using T = io::BlockTensor;
  switch (tensor) {
    case T::AttnNorm:
      return &B::attnNorm;
    case T::AttnNormBias:
      return &B::attnNormBias;
    case T::Q:
      return &B::q;
    case T::QBias:
      return &B::qBias;
    case T::K:
      return &B::k;
    case T::KBias:
      return &B::kBias;
    case T::V:
      return &B::v;
    case T::VBias:
      return &B::vBias;
    case T::QNorm:
      return &B::qNorm;
    case T::KNorm:
      return &B::kNorm;
    case T::Qkv:
      return &B::qkv;
    case T::QkvBias:
      return &B::qkvBias;
    case T::Out:
      return &B::out;
    case T::OutBias:
      return &B::outBias;
    case T::AttnOutNorm:
      return &B::attnOutNorm;
    case T::MlpNorm:
      return &B::mlpNorm;
    case T::MlpNormBias:
      return &B::mlpNormBias;
    case T::MlpOutNorm:
      return &B::mlpOutNorm;
    case T::Gate:
      return &B::gate;
    case T::GateBias:
      return &B::gateBias;
    case T::Up:
      return &B::up;
    case T::UpBias:
      return &B::upBias;
    case T::Down:
      return &B::down;
    case T::DownBias:
      return &B::downBias;
  }
  throw std::logic_error("blockField: unknown block tensor");
}

at::Tensor O::*outerField(io::OuterTensor tensor) {
  using T = io::OuterTensor;
  switch (tensor) {
    case T::Tokens:
      return &O::tokens;
    case T::Positions:
      return &O::positions;
    case T::FinalNorm:
      return &O::finalNorm;
    case T::FinalNormBias:
      return &O::finalNormBias;
    case T::Head:
      return &O::head;
  }
  throw std::logic_error("outerField: unknown outer tensor");
}

}  // namespace

std::string WeightLayout::outerName(at::Tensor OuterWeights::*field) const {
  if (tiedHead && field == &OuterWeights::head) field = &OuterWeights::tokens;
  for (const OuterSlot& slot : outerSlots)
    if (slot.field == field) return slot.name;
  return {};
}

WeightLayout weightLayoutOf(const io::ModelConfig& config,
                            const std::function<bool(const std::string&)>& hasTensor,
                            const std::filesystem::path& source) {
  io::TensorLayout tensors =
      io::architectureSpec(config.architecture).tensors(config, hasTensor, source);
  WeightLayout layout;
  layout.blockPrefix = std::move(tensors.blockPrefix);
  for (io::BlockTensorSlot& slot : tensors.blockSlots)
    layout.blockSlots.push_back(
        {blockField(slot.tensor), std::move(slot.suffix), std::move(slot.shape), slot.required});
  for (io::OuterTensorSlot& slot : tensors.outerSlots)
    layout.outerSlots.push_back(
        {outerField(slot.tensor), std::move(slot.name), std::move(slot.shape)});
  layout.tiedHead = tensors.tiedHead;
  layout.ignoredSuffixes = std::move(tensors.ignoredSuffixes);
  return layout;
}

}  // namespace strata::model
