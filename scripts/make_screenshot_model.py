# A model folder with Llama-3.2-1B's layout (config + safetensors header), weights as a sparse
# all-zero file: only headers are read by `inspect`, so the screenshot shows realistic numbers.
import json, os, struct, sys
folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
V, D, L, H, KV, HD, I = 128256, 2048, 16, 32, 8, 64, 8192
config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": V,
          "hidden_size": D, "num_hidden_layers": L, "num_attention_heads": H,
          "num_key_value_heads": KV, "head_dim": HD, "intermediate_size": I,
          "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
          "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                           "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
          "hidden_act": "silu", "tie_word_embeddings": True, "torch_dtype": "bfloat16",
          "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009]}
json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
tensors = [("model.embed_tokens.weight", [V, D])]
for l in range(L):
    p = f"model.layers.{l}."
    tensors += [(p + "input_layernorm.weight", [D]), (p + "post_attention_layernorm.weight", [D]),
                (p + "self_attn.q_proj.weight", [H * HD, D]), (p + "self_attn.k_proj.weight", [KV * HD, D]),
                (p + "self_attn.v_proj.weight", [KV * HD, D]), (p + "self_attn.o_proj.weight", [D, H * HD]),
                (p + "mlp.gate_proj.weight", [I, D]), (p + "mlp.up_proj.weight", [I, D]),
                (p + "mlp.down_proj.weight", [D, I])]
tensors.append(("model.norm.weight", [D]))
header = {"__metadata__": {"format": "pt"}}
offset = 0
for name, shape in tensors:
    n = 1
    for s in shape: n *= s
    header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + 2 * n]}
    offset += 2 * n
h = json.dumps(header, separators=(",", ":")).encode()
h += b" " * ((8 - len(h) % 8) % 8)
with open(os.path.join(folder, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    f.truncate(8 + len(h) + offset)  # sparse: no disk used for the zeros
vocab = {chr(ord("a") + i): i for i in range(26)}
tok = {"model": {"type": "BPE", "vocab": vocab, "merges": [], "ignore_merges": True},
       "pre_tokenizer": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"}}
json.dump(tok, open(os.path.join(folder, "tokenizer.json"), "w"))
print(sum(1 for _ in tensors), "tensors,", offset // 2, "parameters")
