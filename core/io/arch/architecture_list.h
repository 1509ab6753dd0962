#pragma once
// The supported architectures: one line each, the only list there is (llama.cpp keeps its
// architectures in one table, llama-arch.cpp; this is ours). X(Name, block):
//  - Name is the io::Architecture value; its description (config.json fields, tensor names,
//    GGUF names and fixes) is `const ArchitectureSpec k<Name>Architecture`, defined in
//    io/arch/<family>.cpp (architecture_spec.h);
//  - block is the function that runs one of its transformer blocks, declared in
//    model/backbone/blocks.h and defined in model/backbone/<family>_block.cpp. io never expands
//    it (io sits below model and knows no tensors); model/backbone/blocks.cpp does.
// The order is the enum's; appending keeps every existing value.

#define STRATA_ARCHITECTURES(X) \
  X(Llama, llamaBlock)          \
  X(Qwen2, llamaBlock)          \
  X(Qwen3, llamaBlock)          \
  X(Gpt2, gpt2Block)            \
  X(GptNeoX, neoxBlock)         \
  X(Gemma3, gemma3Block)
