"""PyTorch's side of bench/mlp.sh: the same MLP (784-256-256-10, ReLU, softmax
cross-entropy, He-normal weights and zero biases), the same SGD with momentum
(or Adam/AdamW: --optimizer),
batch, step size and epochs, on the CPU with torch.set_num_threads(T) (intra-op
threads: PyTorch's own way to use T cores on one model), or on a GPU with
--device cuda (the whole set moved to the GPU once; TF32 off unless --tf32). Prints one JSON line per
epoch: elapsed training seconds (evaluation excluded, as hogwild's --metrics),
test accuracy and loss."""
import argparse, gzip, json, sys, time
import numpy as np
import torch

def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)

ap = argparse.ArgumentParser()
ap.add_argument("--dir", default="/usr/share/datasets/fashion-mnist")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--epochs", type=int, default=5)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--lr", type=float, default=0.01)
ap.add_argument("--momentum", type=float, default=0.9)
ap.add_argument("--optimizer", default="sgd", choices=["sgd", "adam", "adamw"])
ap.add_argument("--weight-decay", type=float, default=0.0)
ap.add_argument("--layers", default="256,256")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--device", default="cpu")
ap.add_argument("--tf32", action="store_true")
a = ap.parse_args()
dev = torch.device(a.device)
torch.backends.cuda.matmul.allow_tf32 = a.tf32
torch.backends.cudnn.allow_tf32 = a.tf32
def sync():
    if dev.type == "cuda":
        torch.cuda.synchronize()
torch.set_num_threads(a.threads)
torch.manual_seed(a.seed)
xtr = torch.from_numpy(idx(f"{a.dir}/train-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255)
ytr = torch.from_numpy(idx(f"{a.dir}/train-labels-idx1-ubyte.gz").astype(np.int64))
xte = torch.from_numpy(idx(f"{a.dir}/t10k-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255)
yte = torch.from_numpy(idx(f"{a.dir}/t10k-labels-idx1-ubyte.gz").astype(np.int64))
widths = [784] + [int(w) for w in a.layers.split(",") if w] + [10]
mods = []
for i in range(len(widths) - 1):
    lin = torch.nn.Linear(widths[i], widths[i + 1])
    torch.nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
    torch.nn.init.zeros_(lin.bias)
    mods += [lin, torch.nn.ReLU()]
model = torch.nn.Sequential(*mods[:-1]).to(dev)
xtr, ytr, xte, yte = xtr.to(dev), ytr.to(dev), xte.to(dev), yte.to(dev)
if a.optimizer == "adam":
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, weight_decay=a.weight_decay)
elif a.optimizer == "adamw":
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=a.weight_decay)
else:
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=a.momentum, weight_decay=a.weight_decay)
lossf = torch.nn.CrossEntropyLoss()
elapsed = 0.0
for ep in range(1, a.epochs + 1):
    model.train()
    sync()
    t0 = time.perf_counter()
    perm = torch.randperm(xtr.shape[0], device=dev)
    for i in range(0, xtr.shape[0], a.batch):
        j = perm[i:i + a.batch]
        opt.zero_grad(set_to_none=True)
        loss = lossf(model(xtr[j]), ytr[j])
        loss.backward()
        opt.step()
    sync()
    elapsed += time.perf_counter() - t0
    model.eval()
    with torch.no_grad():
        out = model(xte)
        acc = (out.argmax(1) == yte).float().mean().item()
        tl = lossf(out, yte).item()
    print(json.dumps({"epoch": ep, "threads": a.threads, "device": a.device, "elapsed": elapsed, "test_acc": acc, "test_loss": tl}))
    sys.stdout.flush()
