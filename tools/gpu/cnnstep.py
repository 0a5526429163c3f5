# A second realistic PyTorch workload (shared with the developers): a small conv net and an MLP
# head, fp32 convolutions with batch norm, bf16 autocast for the head, one optimizer step.
import torch
import torch.nn as nn

torch.manual_seed(1)
dev = "cuda"
conv = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1),
    nn.BatchNorm2d(32),
    nn.ReLU(),
    nn.Conv2d(32, 64, 3, padding=1, stride=2),
    nn.BatchNorm2d(64),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(64, 64, 3, padding=1),
    nn.BatchNorm2d(64),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(4),
    nn.Flatten(),
).to(dev)
head = nn.Sequential(nn.Linear(1024, 2048), nn.GELU(), nn.Dropout(0.1), nn.Linear(2048, 10)).to(dev)
params = list(conv.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
x = torch.randn(64, 3, 64, 64, device=dev)
y = torch.randint(0, 10, (64,), device=dev)
feats = conv(x)
with torch.autocast("cuda", dtype=torch.bfloat16):
    out = head(feats)
loss = nn.functional.cross_entropy(out.float(), y)
opt.zero_grad(set_to_none=True)
loss.backward()
opt.step()
s = torch.softmax(out.float(), dim=1).sum(dim=0)
torch.cuda.synchronize()
print("cnnstep loss", float(loss), float(s.sum()))
