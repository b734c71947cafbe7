# make_optim_golden.py: torch.optim's parameters after 6 steps of RMSprop and Adagrad on the
# gradient sequence of tests/nn/test_optim.cpp (gradient_at, initial_values), float64. Its output
# is pasted into the "RMSprop and Adagrad" test case. Run with Debian's torch 1.13:
#   /usr/bin/python3 tests/nn/make_optim_golden.py
import math, torch
torch.set_default_dtype(torch.float64)
def run(make, steps=6, size=6):
    p = torch.tensor([0.3*i-0.7 for i in range(size)], requires_grad=True)
    opt = make([p])
    for k in range(1, steps+1):
        with torch.no_grad():
            v = p.detach().clone()
            g = torch.tensor([0.0 if i==3 else math.sin(1.3*k+i)+0.5*v[i].item()**2-0.2*v[i].item() for i in range(size)])
        opt.zero_grad(); p.grad = g; opt.step()
    return p.detach().tolist()
cases = {
 'rmsprop default': lambda ps: torch.optim.RMSprop(ps),
 'rmsprop lr0.05 alpha0.9 eps1e-3 wd0.1 mom0.5 centered': lambda ps: torch.optim.RMSprop(ps, lr=0.05, alpha=0.9, eps=1e-3, weight_decay=0.1, momentum=0.5, centered=True),
 'rmsprop lr0.02 centered': lambda ps: torch.optim.RMSprop(ps, lr=0.02, centered=True),
 'adagrad default': lambda ps: torch.optim.Adagrad(ps),
 'adagrad lr0.1 lr_decay0.3 wd0.2 init0.5 eps1e-4': lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.3, weight_decay=0.2, initial_accumulator_value=0.5, eps=1e-4),
}
for name, make in cases.items():
    print(name, ['%.17g' % x for x in run(make)])

# The schedulers' rates (get_last_lr after each step) for the scheduler test case.
def seq(make, n=12, lr=1.0):
    p = torch.zeros(1, requires_grad=True)
    o = torch.optim.SGD([p], lr=lr)
    s = make(o)
    out = []
    for i in range(n):
        o.step()
        s.step()
        out.append('%.17g' % o.param_groups[0]['lr'])
    return out
S = torch.optim.lr_scheduler
print('ExponentialLR(0.7)', seq(lambda o: S.ExponentialLR(o, 0.7), n=8))
print('MultiStepLR([2, 5, 5, 9], 0.5)', seq(lambda o: S.MultiStepLR(o, [2, 5, 5, 9], 0.5), n=10))
print('CosineAnnealingLR(4, 0.1) at 0.5', seq(lambda o: S.CosineAnnealingLR(o, 4, 0.1), n=14, lr=0.5))
print('LambdaLR(min(1, (e + 1) / 4)) at 0.2',
      seq(lambda o: S.LambdaLR(o, lambda e: min(1.0, (e + 1) / 4)), n=6, lr=0.2))
