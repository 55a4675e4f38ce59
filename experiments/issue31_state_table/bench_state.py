"""The recurrent-state bookkeeping of PolicyServer._answer alone: the old per-battle dict of
views stacked per forward against the new table (PolicyServer._rows, index_select, index_copy_)."""
import time, torch, random
torch.set_num_threads(1)
D=256; keys=[f"k{i}" for i in range(48)]; B=12
# old: dict of views into each forward's h1
hidden={}
def old(batch, h1):
    zeros=None; hs=[]
    for k in batch:
        h=hidden.get(k)
        if h is None:
            if zeros is None: zeros=torch.zeros(D)
            h=zeros
        hs.append(h)
    h0=torch.stack(hs)[None]
    for i,k in enumerate(batch): hidden[k]=h1[0,i]
    return h0
import sys; sys.path.insert(0,'.')
from league.sim.policy import PolicyServer
from league.model.net import ModelConfig, PolicyValueNet
class S: pass
srv=PolicyServer.__new__(PolicyServer); srv.device=torch.device('cpu'); srv._slots={}; srv._free=[]; srv._state=torch.zeros((0,D))
def new(batch,h1):
    rows=srv._rows(batch); h0=srv._state.index_select(0,rows)[None]; srv._state.index_copy_(0,rows,h1[0]); return h0
rng=random.Random(0); batches=[rng.sample(keys,B) for _ in range(2000)]; h1=torch.randn(1,B,D)
for r in range(3):
  for name,f in (("old",old),("new",new)):
    t=time.process_time()
    for b in batches: f(b,h1)
    print(r,name,"%.1f us/batch"%((time.process_time()-t)/len(batches)*1e6))
