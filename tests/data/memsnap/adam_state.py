#!/usr/bin/env python3
# Writes adam_state.pickle: a constructed snapshot (tests/data/memsnap/SOURCE.md).
# python3 adam_state.py  (in this folder)
import pickle
MB=1<<20
def fr(f,l,n): return [{'filename':f,'line':l,'name':n}]
ev=[]; addr=[0x7f0000000000]
def alloc(t,size,frames):
    a=addr[0]; addr[0]+=size
    ev.append({'action':'alloc','addr':a,'size':size,'stream':0,'time_us':t,'frames':frames}); return a
def free(t,a,size,frames):
    ev.append({'action':'free_requested','addr':a,'size':size,'stream':0,'time_us':t,'frames':frames})
    ev.append({'action':'free_completed','addr':a,'size':size,'stream':0,'time_us':t,'frames':frames})
ev.append({'action':'segment_alloc','addr':0x7f0000000000,'size':1<<30,'stream':0,'time_us':1000,'frames':[]})
T=1000
params=[alloc(T+1+i,4*MB,fr('model.py',12,'__init__')) for i in range(4)]
for step in range(3):
    t0=T+10+step*250
    acts=[alloc(t0+1+i,8*MB,fr('model.py',30,'forward')) for i in range(3)]
    if step==0:
        grads=[alloc(t0+150+i,4*MB,fr('train.py',40,'backward')) for i in range(4)]
    for i,a in enumerate(acts): free(t0+100+i,a,8*MB,fr('model.py',30,'forward'))
    if step==0:
        # Adam's state: exp_avg and exp_avg_sq per parameter, made in the first step
        for i in range(4):
            alloc(t0+200+2*i,4*MB,fr('adam.py',104,'_init_group'))
            alloc(t0+201+2*i,4*MB,fr('adam.py',105,'_init_group'))
    else:
        alloc(t0+220,512,fr('train.py',55,'log_loss'))   # a loss kept every step: a leak
snap={'segments':[],'device_traces':[ev]}
with open('adam_state.pickle','wb') as f: pickle.dump(snap,f,protocol=4)
print(len(ev), ev[-1]['time_us'])
