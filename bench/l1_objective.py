#!/usr/bin/env python3
"""The objective of bench/l1.sh's comparison, on the training set, for a hogwild
model (its `hogwild model dump` records, "ID WEIGHT" lines and "bias B") and a
liblinear -s 6 -B 1 model at the same C: mean logistic loss and
l1 |w|_1 with l1 = 1/(C n), the bias not in the norm (hogwild does not
regularize it; liblinear 2.3 does, so its figure here is a lower bound of what
it minimized).
usage: l1_objective.py HOGWILD.w LIBLINEAR.model C A9A"""
import math
import sys

def load_svm(p):
    X=[];Y=[]
    for line in open(p):
        t=line.split(); Y.append(float(t[0])); X.append([int(a.split(':')[0]) for a in t[1:]])
    return X,Y
X,Y=load_svm(sys.argv[4])
n=len(Y); C=float(sys.argv[3]); lam=1/(C*n)
def obj(w,b):
    s=0
    for x,y in zip(X,Y):
        m=b+sum(w.get(i,0) for i in x); z=-y*m
        s+=math.log1p(math.exp(z)) if z<30 else z
    return round(s/n,5), round(lam*sum(abs(v) for v in w.values()),5)
w={};b=0
for l in open(sys.argv[1]):
    k,v=l.split()
    if k=='bias': b=float(v)
    else: w[int(k)]=float(v)
o=obj(w,b); print('hogwild', o, sum(o), sum(1 for v in w.values() if v))
lines=open(sys.argv[2]).read().split('\n')
i=lines.index('w'); vals=[float(x) for x in lines[i+1:i+125] if x.strip()]
lab=[l for l in lines if l.startswith('label')][0].split()[1:]
sg=1 if lab[0] in ('+1','1') else -1
w2={j+1:sg*vals[j] for j in range(123)}; b2=sg*vals[123]
o=obj(w2,b2); print('liblinear', o, sum(o), sum(1 for v in w2.values() if v), 'bias', b2)
