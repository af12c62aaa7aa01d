#!/usr/bin/env python3
"""Which readings of seed 000 reproduce its Appendix B tables? (docs/appendix-b.md)

A throwaway re-derivation of the three models in closed form, used only to explore alternative
readings quickly; modelopt itself is the reference. Run: python3 scripts/appendix_b_readings.py
"""
import csv, itertools, math
rows=list(csv.DictReader(open(__import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'papers', 'seed000-appendix-b.csv'))))
def paper(table):
    out={}
    for r in rows:
        if r['table']==table:
            ks=[int(r[k]) for k in ('k1','k2','k3') if r[k]][:int(r['depth'])]
            out[int(r['threads'])]=tuple(ks)
    return out
def covers(n):
    # minimal covers, non-increasing
    res=[]
    def go(pref,cov,prod):
        last=pref[-1] if pref else 10**9
        kf=max(1,math.ceil((n-cov)/prod))
        if kf<=last: res.append(tuple(pref+[kf]))
        for k in range(1,min(last,kf-1)+1):
            go(pref+[k],cov+prod*k,prod*k)
    go([],1,1); return res
B1=paper('B.1'); B3=paper('B.3')
# B.1: cost ∝ rho*d + sum(k). Interval of rho for which paper's (d, sum) is optimal.
lo,hi=0,1e9; bad=[]
for n,ks in B1.items():
    d,s=len(ks),sum(ks)
    l,h=0,1e9
    for c in covers(n):
        dd,ss=len(c),sum(c)
        # need rho*d+s <= rho*dd+ss  -> rho*(d-dd) <= ss-s
        if d>dd: h=min(h,(ss-s)/(d-dd))
        elif d<dd: l=max(l,(ss-s)/(d-dd))
        elif s>ss: l,h=1,0
    if l>h: bad.append(n)
    else: lo,hi=max(lo,l),min(hi,h)
print("B.1: rows not optimal for any rho:",bad,"; common rho interval:",(lo,hi))
RL,RR,RI,b,c,o,q,p=8.6,235.8,277.7,320.5,56.2,76.0,1521.0,1096.0
print("our rho = L/K =",(2*RI+2*RL+b)/(c+RR))
# B.3 readings
def red(ks,Tk):
    return sum(RI+(b+c*k)+(1+k)*RR+RL+Tk(k) for k in ks)+RR
readings={'multi-line T_k = o k + q - p/k (ours)':lambda k:o*k+q-p/k,
 'T_k = o k (asymptotic only)':lambda k:o*k,
 'T_k = k R_L (local reads)':lambda k:k*RL,
 'T_k = 0 (omitted)':lambda k:0.0,
 'T_k = q + o k (no p)':lambda k:q+o*k}
for name,Tk in readings.items():
    agree=0; sumeq=0
    for n,ks in B3.items():
        best=min(covers(n),key=lambda c:(round(red(c,Tk),6),len(c),c))
        if best==ks: agree+=1
        elif abs(red(best,Tk)-red(ks,Tk))<1e-6: sumeq+=1
    print(f"B.3 {name}: {agree} agree, {sumeq} tie of {len(B3)}")
lo,hi=0,1e9; bad=[]
for n,ks in B3.items():
    d,s=len(ks),sum(ks); l,h=0,1e9
    for cc in covers(n):
        dd,ss=len(cc),sum(cc)
        if d>dd: h=min(h,(ss-s)/(d-dd))
        elif d<dd: l=max(l,(ss-s)/(d-dd))
        elif s>ss: l,h=1,0
    if l>h: bad.append((n,ks))
    else: lo,hi=max(lo,l),min(hi,h)
print("B.3 linear-cost rows inconsistent with any rho:",bad,"; interval of the others:",(lo,hi))
Lp=RI+b+RR+RL; Kp=c+RR+o
print("B.3 with T_k = o k: rho =",Lp/Kp, " with T_k=0:",Lp/(c+RR))
b=RL+RR-c
print("hypothesis b = R_L + R_R - c =",b)
def bc(ks): return RI+sum(2*RI+2*RL+b+c*k+k*RR for k in ks)
agree=tie=0
for n,ks in B1.items():
    best=min(covers(n),key=lambda cc:(round(bc(cc),6),len(cc),cc))
    if best==ks: agree+=1
    elif abs(bc(best)-bc(ks))<1e-6: tie+=1
print("B.1 with that b:",agree,"agree,",tie,"tie of",len(B1))
for name,Tk in readings.items():
    agree=tie=0
    for n,ks in B3.items():
        best=min(covers(n),key=lambda cc:(round(red(cc,Tk),6),len(cc),cc))
        if best==ks: agree+=1
        elif abs(red(best,Tk)-red(ks,Tk))<1e-6: tie+=1
    print(f"B.3 with that b, {name}: {agree} agree, {tie} tie")

# --- Further readings with the printed b = 320.5 (issue 12; docs/appendix-b.md lists them all) ---
b=320.5
def bc_nb(ks):
    # T_nb(k_i) instead of T_nb(k_i + 1): each level's notification backwards counts k_i threads.
    Tnb=lambda n: RI+(n-1)*RR
    return (len(ks)+1)*RI+2*len(ks)*RL+sum(c*k+b+Tnb(k) for k in ks)
agree=tie=0
for n,ks in B1.items():
    best=min(covers(n),key=lambda cc:(round(bc_nb(cc),6),len(cc),cc))
    if best==ks: agree+=1
    elif abs(bc_nb(best)-bc_nb(ks))<1e-6: tie+=1
L_nb=2*RI+2*RL+b-RR; K_nb=c+RR
print(f"B.1 with b = 320.5 and T_nb(k_i): rho = {L_nb:.1f}/{K_nb:.1f} = {L_nb/K_nb:.3f}; {agree} agree, {tie} tie of {len(B1)}")
for bb in (320.5, RL+RR-c):
    b=bb
    Tk=lambda k: k*RR
    agree=tie=0
    for n,ks in B3.items():
        best=min(covers(n),key=lambda cc:(round(red(cc,Tk),6),len(cc),cc))
        if best==ks: agree+=1
        elif abs(red(best,Tk)-red(ks,Tk))<1e-6: tie+=1
    Lr=RI+b+RR+RL; Kr=c+2*RR
    print(f"B.3 with b = {b:.1f} and T_k = k R_R: rho = {Lr:.1f}/{Kr:.1f} = {Lr/Kr:.3f}; {agree} agree, {tie} tie of {len(B3)}")
b=RL+RR-c
Lo=RI+b+RR+RL; Ko=c+RR+o
print(f"B.3 with b = {b:.1f} and T_k = o k: rho = {Lo:.1f}/{Ko:.1f} = {Lo/Ko:.3f}")
