# A training loop as people write it, for profiling whole runs (several steps, not one kernel):
# a small GPT-style model (embedding, two pre-norm transformer blocks with PyTorch's fused
# attention, an MLP, bf16 autocast), cross entropy, and AdamW. The optimizer is chosen on the
# command line, so the same loop can be profiled with a per-parameter optimizer (PyTorch's
# `foreach=False`: several small kernels per parameter and step), the default multi-tensor one
# (`foreach`) and the fused one:
#   python3 trainloop.py [--steps 5] [--optimizer loop|foreach|fused] [--time]
# With --time it runs unprofiled and prints the wall time per step after three warm-up steps
# (what the program-level advice's estimates are checked against).
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=5)
parser.add_argument("--optimizer", choices=["loop", "foreach", "fused"], default="loop")
parser.add_argument("--time", action="store_true")
args = parser.parse_args()

torch.manual_seed(0)
dev = "cuda"
VOCAB, D, HEADS, SEQ, BATCH = 2048, 256, 4, 128, 16


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, HEADS, D // HEADS).transpose(1, 3).unbind(2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, D))
        return x + self.mlp(self.ln2(x))


model = nn.Sequential(nn.Embedding(VOCAB, D), Block(), Block(), nn.LayerNorm(D), nn.Linear(D, VOCAB)).to(dev)
options = {"loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}[args.optimizer]
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, **options)
data = torch.randint(0, VOCAB, (BATCH, SEQ + 1), device=dev)


def step() -> torch.Tensor:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(data[:, :-1])
    loss = F.cross_entropy(logits.float().view(-1, VOCAB), data[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


if args.time:
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(args.steps):
        loss = step()
    end.record()
    torch.cuda.synchronize()
    print(f"trainloop {args.optimizer}: {start.elapsed_time(end) / args.steps:.3f} ms per step")
else:
    for _ in range(args.steps):
        loss = step()
    torch.cuda.synchronize()
print("trainloop", args.optimizer, args.steps, "steps, loss", float(loss))
