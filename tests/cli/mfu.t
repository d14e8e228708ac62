# vprof mfu: whole outputs on the bundled model configs (tests/data/models,
# from the public model cards), the constructed Megatron log, the HTA
# trace and small generated traces; every bad input exits 2 with the flag
# that supplies what is missing.  The exact values the issue asks for are
# in the comments of the cases that show them.  Every case runs in $WORK
# on copies, so that the paths in the notes are the same in any checkout.
cp "$DATA"/models/*.json "$DATA"/models/*.log "$DATA"/hta/trace_filter_rank-0.json.gz . ||
    exit 1

# 7,504,658,432 matmul weights (7.505 B); 57.9 / 51.5 GFLOP/token; MFU 52.7 % / 46.8 %
case_ 'the worked example: Llama-3-8B at one 8192-token document, 9000 tokens/s/GPU on an H100 SXM'
vp_tables "model flops mfu" mfu --model llama-3-8b.json --seq-len 8192 --tokens-per-sec 9000 --gpu "H100 SXM" -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,8030261248
total without input embedding,7504924672
input embedding,525336576
lm_head,525336576
attention,1342177280
MLP,5637144576
norms,266240
matmul weights per token (N),7504658432

Term,Full GFLOP/token,Causal GFLOP/token
dense matmuls,41.876,41.876
attention,12.885,6.442
lm_head,3.152,3.152
total,57.913,51.470

Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
full,,9000,57.913,521.2,989.00,52.7
causal,,9000,51.470,463.2,989.00,46.8
END
expect_stderr <<'END'
END

# 46.6 full, 45.8 causal
case_ 'eight 1024-token documents packed into 8192 (--seqlens), table format'
printf '1024 1024 1024 1024\n1024,1024 # comment\n1024\n1024\n' > lens.txt
vp mfu --model llama-3-8b.json --seqlens lens.txt
expect_status 0
expect_stdout <<'END'
== model ==
Parameters                             Count
-----------------------------  -------------
total                          8,030,261,248
total without input embedding  7,504,924,672
input embedding                  525,336,576
lm_head                          525,336,576
attention                      1,342,177,280
MLP                            5,637,144,576
norms                                266,240
matmul weights per token (N)   7,504,658,432
note: llama-3-8b.json: llama, 32 layers, hidden 4096, 32 heads (8 KV, head dim 128), untied embeddings

== flops ==
Term           Full GFLOP/token  Causal GFLOP/token
-------------  ----------------  ------------------
dense matmuls              41.9                41.9
attention                  1.61               0.805
lm_head                    3.15                3.15
total                      46.6                45.8
note: attention per document: 8 documents in lens.txt, 8192 tokens, mean length 1024.0
note: full: the whole s^2 per document (PaLM, nanoGPT, VeOmni); causal: s^2/2 (Megatron-LM since 2025-03)
END
expect_stderr <<'END'
END

# 8192 tokens a step of 1 s on 8 GPUs: 1,024 tokens/s/GPU, 4.7 % causal
case_ 'the tokens of a step are the sum of --seqlens when nothing else gives them'
vp mfu --model llama-3-8b.json --seqlens lens.txt --step-time 1s --world-size 8 --peak-tflops 989 --convention causal -f md
expect_status 0
expect_stdout <<'END'
### model

| Parameters | Count |
| --- | ---: |
| total | 8,030,261,248 |
| total without input embedding | 7,504,924,672 |
| input embedding | 525,336,576 |
| lm\_head | 525,336,576 |
| attention | 1,342,177,280 |
| MLP | 5,637,144,576 |
| norms | 266,240 |
| matmul weights per token (N) | 7,504,658,432 |

- note: llama-3-8b.json: llama, 32 layers, hidden 4096, 32 heads (8 KV, head dim 128), untied embeddings

### flops

| Term | Causal GFLOP/token |
| --- | ---: |
| dense matmuls | 41.9 |
| attention | 0.805 |
| lm\_head | 3.15 |
| total | 45.8 |

- note: attention per document: 8 documents in lens.txt, 8192 tokens, mean length 1024.0

### mfu

| Convention | Step Time | Tokens/s/GPU | GFLOP/token | TFLOP/s/GPU | Peak TFLOP/s | MFU |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
| causal | 1.00 s | 1,024 | 45.8 | 46.9 | 989 | 4.7% |

- note: tokens per step: 8192 (the sum of --seqlens)
- note: peak: 989 TFLOP/s per device (--peak-tflops)
END
expect_stderr <<'END'
END

# 7,615,616,512
case_ 'Qwen2.5-7B: q/k/v biases, untied'
vp_tables "model flops" mfu --model qwen2.5-7b.json --seq-len 4096 --convention causal -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,7615616512
total without input embedding,7070619136
input embedding,544997376
lm_head,544997376
attention,822212608
MLP,5703204864
norms,204288
matmul weights per token (N),7070285824

Term,Causal GFLOP/token
dense matmuls,39.152
attention,2.466
lm_head,3.270
total,44.888
END
expect_stderr <<'END'
END

# 46,702,792,704 and 12,879,925,248
case_ 'Mixtral-8x7B: total and active'
vp_tables "model flops" mfu --model mixtral-8x7b.json --seq-len 4096 --convention full -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,46702792704
total without input embedding,46571720704
active per token,12879925248
active without input embedding,12748853248
input embedding,131072000
lm_head,131072000
attention,1342177280
MLP and experts,45098205184
norms,266240
matmul weights per token (N),12748587008

Term,Full GFLOP/token
dense matmuls,75.705
attention,6.442
lm_head,0.786
total,82.934
END
expect_stderr <<'END'
END

# 671 B total, 37 B active without the input embedding
case_ 'DeepSeek-V3: MLA, 3 dense layers, shared expert, MTP apart'
vp_tables "model flops" mfu --model deepseek-v3.json --seq-len 4096 -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,671026419200
total without input embedding,670099740160
active per token,37552297472
active without input embedding,36625618432
input embedding,926679040
lm_head,926679040
attention,11413422080
MLP and experts,657758632448
norms,1006592
matmul weights per token (N),36624596992
MTP module (not in total),11610068224

Term,Full GFLOP/token,Causal GFLOP/token
dense matmuls,214.188,214.188
attention,61.405,30.702
lm_head,5.560,5.560
total,281.152,250.450
END
expect_stderr <<'END'
END

case_ 'flags override the config: a 16-layer Llama, tied'
vp_tables "model flops" mfu --model llama-3-8b.json --layers 16 --tied --seq-len 2048 --convention causal -f tsv
expect_status 0
expect_stdout <<'END'
Parameters	Count
total	4015132672
total without input embedding	3489796096
input embedding	525336576
lm_head	0
attention	671088640
MLP	2818572288
norms	135168
matmul weights per token (N)	4014997504

Term	Causal GFLOP/token
dense matmuls	20.938
attention	0.805
lm_head	3.152
total	24.895
END
expect_stderr <<'END'
END

case_ 'a model from flags alone, unknown model_type works'
vp_tables "model flops" mfu --hidden 1024 --layers 4 --heads 16 --ffn 4096 --vocab 1000 --mlp plain --seq-len 128 -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,52388864
total without input embedding,51364864
input embedding,1024000
lm_head,1024000
attention,16777216
MLP,33554432
norms,9216
matmul weights per token (N),51355648

Term,Full GFLOP/token,Causal GFLOP/token
dense matmuls,0.302,0.302
attention,0.006,0.003
lm_head,0.006,0.006
total,0.314,0.311
END
expect_stderr <<'END'
END

# Log vs vprof within 0.05 %
case_ 'Megatron log: vprof reproduces the TFLOP/s/GPU Megatron printed (Megatron-LM >= 2025-03 formula, causal)'
vp_tables "model flops iterations mfu" mfu --log megatron-llama3-8b.log --model llama-3-8b.json --gpu H100 -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,8030261248
total without input embedding,7504924672
input embedding,525336576
lm_head,525336576
attention,1342177280
MLP,5637144576
norms,266240
matmul weights per token (N),7504658432

Term,Full GFLOP/token,Causal GFLOP/token
dense matmuls,41.876,41.876
attention,12.885,6.442
lm_head,3.152,3.152
total,57.913,51.470

Iteration,Step Time (ns),Tokens/s/GPU,Log TFLOP/s/GPU,Full TFLOP/s/GPU,Causal TFLOP/s/GPU,Log vs vprof (%),Full MFU (%),Causal MFU (%)
10,2105300000,7782,400.6,450.7,400.6,0.01,45.6,40.5
20,1821700000,8994,462.9,520.9,462.9,0.00,52.7,46.8
30,1819400000,9005,463.5,521.5,463.5,0.00,52.7,46.9
40,1824900000,8978,462.1,519.9,462.1,0.00,52.6,46.7
50,1818800000,9008,463.7,521.7,463.7,0.01,52.7,46.9
60,1822600000,8989,462.7,520.6,462.7,0.00,52.6,46.8

Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
full,1822150000,8992,57.913,520.7,989.00,52.7
causal,1822150000,8992,51.470,462.8,989.00,46.8
END
expect_stderr <<'END'
END

case_ 'HTA trace (a ranking model, Llama stands in): two ProfilerSteps, world size 128 from distributedInfo, no deviceProperties: --gpu'
vp_tables "model flops steps mfu" mfu trace_filter_rank-0.json.gz --model llama-3-8b.json --seq-len 8192 --tokens-per-step 262144 --gpu A100 --convention causal -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,8030261248
total without input embedding,7504924672
input embedding,525336576
lm_head,525336576
attention,1342177280
MLP,5637144576
norms,266240
matmul weights per token (N),7504658432

Term,Causal GFLOP/token
dense matmuls,41.876
attention,6.442
lm_head,3.152
total,51.470

Step,Duration (ns),Used
551,607312000,yes
552,622928000,yes

Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
causal,615120000,3329,51.470,171.4,312.00,54.9
END
expect_stderr <<'END'
END

case_ 'a generated trace: H100 from deviceProperties, first step an outlier, recompute full (HFU)'
cat > small.json <<'JSON'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
 "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#10", "pid": 1, "tid": 1, "ts": 1000, "dur": 950000},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#10", "pid": 0, "tid": 7, "ts": 1005, "dur": 990000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#11", "pid": 1, "tid": 1, "ts": 951100, "dur": 600000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#12", "pid": 1, "tid": 1, "ts": 1551200, "dur": 610000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#13", "pid": 1, "tid": 1, "ts": 2161300, "dur": 605000}
 ]}
JSON
vp mfu small.json --model llama-3-8b.json --seq-len 8192 --global-batch 4 --recompute full
expect_status 0
expect_stdout <<'END'
== model ==
Parameters                             Count
-----------------------------  -------------
total                          8,030,261,248
total without input embedding  7,504,924,672
input embedding                  525,336,576
lm_head                          525,336,576
attention                      1,342,177,280
MLP                            5,637,144,576
norms                                266,240
matmul weights per token (N)   7,504,658,432
note: llama-3-8b.json: llama, 32 layers, hidden 4096, 32 heads (8 KV, head dim 128), untied embeddings

== flops ==
Term           Full GFLOP/token  Causal GFLOP/token
-------------  ----------------  ------------------
dense matmuls              41.9                41.9
attention                  12.9                6.44
lm_head                    3.15                3.15
total                      57.9                51.5
note: attention over whole sequences of 8192 tokens, one document each (--seqlens gives real document lengths)
note: full: the whole s^2 per document (PaLM, nanoGPT, VeOmni); causal: s^2/2 (Megatron-LM since 2025-03)

== steps ==
Step  Duration  Used
----  --------  ------------------------
  10    950 ms  no (first step, outlier)
  11    600 ms  yes
  12    610 ms  yes
  13    605 ms  yes

== mfu ==
Convention  Step Time  Tokens/s/GPU  GFLOP/token  TFLOP/s/GPU  Peak TFLOP/s    MFU    HFU
----------  ---------  ------------  -----------  -----------  ------------  -----  -----
full           605 ms         6,770         57.9          392           989  39.6%  52.1%
causal         605 ms         6,770         51.5          348           989  35.2%  46.3%
note: world size: 8 (distributedInfo.world_size)
note: step time: median of 3 ProfilerStep spans in small.json (the first, #10, is an outlier and left out)
note: tokens per step: 32768 (--global-batch x --seq-len)
note: peak: 989 TFLOP/s dense bf16 per device, H100 SXM (NVIDIA H100 datasheet; torchtitan); "H100" matched in "NVIDIA H100 80GB HBM3" (deviceProperties)
note: HFU counts the full (every layer's forward) recomputation as work done
END
expect_stderr <<'END'
END

case_ '--steps picks steps'
cat > small.json <<'JSON'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
 "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#10", "pid": 1, "tid": 1, "ts": 1000, "dur": 950000},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#10", "pid": 0, "tid": 7, "ts": 1005, "dur": 990000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#11", "pid": 1, "tid": 1, "ts": 951100, "dur": 600000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#12", "pid": 1, "tid": 1, "ts": 1551200, "dur": 610000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#13", "pid": 1, "tid": 1, "ts": 2161300, "dur": 605000}
 ]}
JSON
vp_tables "model flops steps mfu" mfu small.json --model llama-3-8b.json --seq-len 8192 --global-batch 4 --steps 12: --convention causal -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,8030261248
total without input embedding,7504924672
input embedding,525336576
lm_head,525336576
attention,1342177280
MLP,5637144576
norms,266240
matmul weights per token (N),7504658432

Term,Causal GFLOP/token
dense matmuls,41.876
attention,6.442
lm_head,3.152
total,51.470

Step,Duration (ns),Used
10,950000000,no (not in --steps)
11,600000000,no (not in --steps)
12,610000000,yes
13,605000000,yes

Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
causal,607500000,6742,51.470,347.0,989.00,35.1
END
expect_stderr <<'END'
END

case_ '--step-time with --world-size, json'
vp mfu --model llama-3-8b.json --seq-len 8192 --tokens-per-step 1048576 --step-time 1820ms --world-size 64 --peak-tflops 989 --convention causal -f json
expect_status 0
expect_stdout <<'END'
{"schema":"vprof.mfu/1","tables":{"model":{"columns":[{"name":"Parameters","type":"text"},{"name":"Count","type":"int"}],"rows":[["total",8030261248],["total without input embedding",7504924672],["input embedding",525336576],["lm_head",525336576],["attention",1342177280],["MLP",5637144576],["norms",266240],["matmul weights per token (N)",7504658432]],"notes":["llama-3-8b.json: llama, 32 layers, hidden 4096, 32 heads (8 KV, head dim 128), untied embeddings"]},"flops":{"columns":[{"name":"Term","type":"text"},{"name":"Causal GFLOP/token","type":"ratio"}],"rows":[["dense matmuls",41.875931136],["attention",6.442450944],["lm_head",3.152019456],["total",51.470401536]],"notes":["attention over whole sequences of 8192 tokens, one document each (--seqlens gives real document lengths)"]},"mfu":{"columns":[{"name":"Convention","type":"text"},{"name":"Step Time (ns)","type":"ns"},{"name":"Tokens/s/GPU","type":"int"},{"name":"GFLOP/token","type":"ratio"},{"name":"TFLOP/s/GPU","type":"ratio"},{"name":"Peak TFLOP/s","type":"ratio"},{"name":"MFU (%)","type":"percent"}],"rows":[["causal",1820000000,9002,51.470401536,463.3467355856175,989,46.85002382058822]],"notes":["tokens per step: 1048576 (--tokens-per-step)","peak: 989 TFLOP/s per device (--peak-tflops)"]}}}
END
expect_stderr <<'END'
END

case_ 'no model'
vp mfu --seq-len 8192
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: no model: give --model config.json, or describe it with --hidden, --layers, --heads, --ffn and --vocab
Try 'vprof help mfu'.
END

case_ 'a config without vocab_size names the key and the flag'
printf '{"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128}' > c.json
vp mfu --model c.json --seq-len 16
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: the model has no vocab_size: give it in the config or with --vocab
Try 'vprof help mfu'.
END

case_ 'no sequence length'
vp mfu --model llama-3-8b.json
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: the sequence length is not known: give --seq-len N (tokens per sequence) or --seqlens FILE (document lengths)
Try 'vprof help mfu'.
END

case_ 'not a config'
printf '[1, 2]' > c.json
vp mfu --model c.json --seq-len 16
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: c.json: not a JSON object (a config.json is expected)
END

case_ 'trace without deviceProperties and no --gpu'
vp mfu trace_filter_rank-0.json.gz --model llama-3-8b.json --seq-len 8192 --tokens-per-step 1048576
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: the accelerator is not known (the trace has no deviceProperties): give --gpu NAME (e.g. "H100 SXM") or --peak-tflops N
Try 'vprof help mfu'.
END

case_ 'trace without steps and no --step-time'
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}]}' > nosteps.json
vp mfu nosteps.json --model llama-3-8b.json --seq-len 8192 --tokens-per-step 8192 --peak-tflops 989
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: nosteps.json has no ProfilerStep#N annotations: give the step time with --step-time
Try 'vprof help mfu'.
END

case_ 'tokens per step not given'
cat > small.json <<'JSON'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
 "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#10", "pid": 1, "tid": 1, "ts": 1000, "dur": 950000},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#10", "pid": 0, "tid": 7, "ts": 1005, "dur": 990000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#11", "pid": 1, "tid": 1, "ts": 951100, "dur": 600000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#12", "pid": 1, "tid": 1, "ts": 1551200, "dur": 610000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#13", "pid": 1, "tid": 1, "ts": 2161300, "dur": 605000}
 ]}
JSON
vp mfu small.json --model llama-3-8b.json --seq-len 8192
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: tokens per step not known: give --tokens-per-step, or --global-batch with --seq-len
Try 'vprof help mfu'.
END

case_ 'accelerator not in the table'
vp mfu --model llama-3-8b.json --seq-len 8192 --tokens-per-sec 9000 --gpu "AMD Radeon Graphics"
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: 'AMD Radeon Graphics' (--gpu) is not in vprof's peak table: give its dense peak with --peak-tflops N
Try 'vprof help mfu'.
END

case_ 'no BF16 on a V100'
vp mfu --model llama-3-8b.json --seq-len 8192 --tokens-per-sec 9000 --gpu V100
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: no dense bf16 peak known for the V100: give --peak-tflops N or --dtype fp16
Try 'vprof help mfu'.
END

case_ '--step-time without --world-size'
vp mfu --model llama-3-8b.json --seq-len 8192 --tokens-per-step 8192 --step-time 1.5 --gpu A100
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: the number of GPUs is not known: give --world-size
Try 'vprof help mfu'.
END

case_ 'bad numbers'
vp mfu --model llama-3-8b.json --seq-len 0
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: --seq-len: expected a positive whole number, found '0'
Try 'vprof help mfu'.
END

case_ 'bad --step-time'
vp mfu --model llama-3-8b.json --seq-len 8 --step-time 3parsecs
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: --step-time: expected seconds ("1.82", "1.82s" or "1820ms"), found '3parsecs'
Try 'vprof help mfu'.
END

case_ 'a log with no iteration lines'
printf 'hello\nworld\n' > x.log
vp mfu --log x.log --model llama-3-8b.json --seq-len 8192 --gpu A100 --world-size 8 --global-batch 8
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: x.log: no iteration lines with a time or a throughput (docs/mfu.md lists the forms read)
Try 'vprof help mfu'.
END

case_ 'VeOmni EnvironMeter lines: MFU = flops_achieved(T) / flops_promised(T), no model'
# a printed dict, a JSON line with efficiency/ prefixes, key=value; the
# third line has no logged mfu.  30.00, 25.00, 37.51 %; median 30.00 %.
cat > veomni.log <<'EOF2'
[INFO] {'global_step': 1, 'flops_achieved(T)': 2400.0, 'flops_promised(T)': 8000.0, 'mfu': 0.3, 'tokens_per_second(M)': 0.5}
{"global_step": 2, "efficiency/flops_achieved(T)": 2000, "efficiency/flops_promised(T)": 8000, "efficiency/mfu": 0.25}
loss=2.1 step=3 flops_achieved(T)=3000.5 flops_promised(T)=8000
EOF2
vp mfu --log veomni.log -f csv
expect_status 0
expect_stdout <<'END'
Step,Line,Achieved (TFLOP/s),Promised (TFLOP/s),MFU (%),Logged MFU (%)
1,1,2400.000,8000.000,30.00,30.00
2,2,2000.000,8000.000,25.00,25.00
3,3,3000.500,8000.000,37.51,
END
vp mfu --log veomni.log
expect_stdout_has "source: VeOmni's EnvironMeter metrics in log lines veomni.log (lines)"
expect_stdout_has "median MFU over 3 steps: 30.00%"

case_ 'VeOmni metrics in a W&B export: CSV (empty cells of other steps) and JSON'
# 25.00 and 37.50 %, median 31.25 %; JSON 10.00 and 30.00 %, median 20.00 %.
printf '"Step","flops_achieved(T)","flops_promised(T)","mfu"\n10,1000,4000,0.25\n11,,,\n12,1500,4000,0.375\n' > wandb.csv
vp mfu --log wandb.csv -f csv
expect_status 0
expect_stdout <<'END'
Step,Line,Achieved (TFLOP/s),Promised (TFLOP/s),MFU (%),Logged MFU (%)
10,2,1000.000,4000.000,25.00,25.00
12,4,1500.000,4000.000,37.50,37.50
END
vp mfu --log wandb.csv -f json
expect_stdout_has 'a W&B CSV export wandb.csv'
expect_stdout_has 'median MFU over 2 steps: 31.25%'
printf '[{"_step": 5, "flops_achieved(T)": 100.0, "flops_promised(T)": 1000.0, "mfu": 0.1},\n {"_step": 6, "loss": 2.0},\n {"_step": 7, "flops_achieved(T)": 300.0, "flops_promised(T)": 1000.0}]\n' > wandb.json
vp mfu --log wandb.json -f csv
expect_status 0
expect_stdout <<'END'
Step,Line,Achieved (TFLOP/s),Promised (TFLOP/s),MFU (%),Logged MFU (%)
5,1,100.000,1000.000,10.00,10.00
7,3,300.000,1000.000,30.00,
END
vp mfu --log wandb.json
expect_stdout_has 'a W&B JSON export wandb.json (elements)'
expect_stdout_has 'median MFU over 2 steps: 20.00%'
printf '[{"_step": 5, "flops_achieved(T)": 1' > bad.json
vp mfu --log bad.json
expect_status 3
expect_stderr_has 'bad.json: byte'
vp mfu --log veomni.log --model llama-3-8b.json --seq-len 8192 --gpu H100 -f json
expect_status 2
expect_stderr_has 'no iteration lines with a time or a throughput'

case_ 'MFU above 100% warns'
vp_tables "model flops mfu" mfu --model llama-3-8b.json --seq-len 8192 --tokens-per-sec 90000 --gpu H100 --convention causal -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,8030261248
total without input embedding,7504924672
input embedding,525336576
lm_head,525336576
attention,1342177280
MLP,5637144576
norms,266240
matmul weights per token (N),7504658432

Term,Causal GFLOP/token
dense matmuls,41.876
attention,6.442
lm_head,3.152
total,51.470

Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
causal,,90000,51.470,4632.3,989.00,468.4
END
expect_stderr <<'END'
vprof: warning: MFU above 100%: the tokens per step, the world size, the model or the peak are not this run's
END

case_ 'a missing config file'
vp mfu --model nonexistent.json --seq-len 8
expect_status 3
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: cannot open nonexistent.json: No such file or directory
END

# Real traces in ../shared (skipped, not failed, when it is absent).
H="$SHARED/fixtures/real/hta/tests/data"
# One MFU computation with one world-size rule (distributedInfo's
# world_size, else the traces read; --world-size overrides): summary and
# mfu give the same MFU, on one rank and on two.
mfu_pct() {
    python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["tables"]["mfu"]
print(repr(t["rows"][0][-1] if sys.argv[2] == "mfu" else t["rows"][0][0]))' "$1" "$2"
}
same_mfu() {
    want=$1
    shift
    vp mfu -f json "$@"
    expect_status 0
    cp "$OUT_STDOUT" "$WORK/mfu.json"
    vp summary -f json "$@"
    expect_status 0
    cp "$OUT_STDOUT" "$WORK/summary.json"
    a=$(mfu_pct "$WORK/mfu.json" mfu)
    b=$(mfu_pct "$WORK/summary.json" summary)
    if [ "$a" = "$want" ] && [ "$b" = "$want" ]; then pass; else
        fail "MFU: mfu $a, summary $b, expected $want"; fi
}

case_ 'mfu and summary agree: trace_filter rank 0 (world size 128 from distributedInfo)'
cd "$DATA/hta" || exit 1
same_mfu 41.19403466370539 --model ../models/llama-3-8b.json --seq-len 4096 \
    --tokens-per-step 196608 --peak-tflops 312 trace_filter_rank-0.json.gz

case_ "mfu and summary agree: trace_filter ranks 0 and 1 (a step is its longest rank's)"
same_mfu 40.9178762503013 --model ../models/llama-3-8b.json --seq-len 4096 \
    --tokens-per-step 196608 --peak-tflops 312 trace_filter_rank-0.json.gz trace_filter_rank-1.json.gz

case_ 'mfu and summary agree: --world-size overrides distributedInfo'
same_mfu 20.597017331852694 --model ../models/llama-3-8b.json --seq-len 4096 \
    --tokens-per-step 196608 --peak-tflops 312 --world-size 256 trace_filter_rank-0.json.gz
cd "$WORK" || exit 1

if [ -d "$H" ]; then

case_ '../shared nccl_data: A100-PG509-200 from deviceProperties, world size 2, three steps'
cd "$H/nccl_parser_config" || exit 1
vp_tables "model flops steps mfu" mfu nccl_data.json.gz --model "$WORK/llama-3-8b.json" --seq-len 512 --global-batch 1 --convention causal -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,8030261248
total without input embedding,7504924672
input embedding,525336576
lm_head,525336576
attention,1342177280
MLP,5637144576
norms,266240
matmul weights per token (N),7504658432

Term,Causal GFLOP/token
dense matmuls,41.876
attention,0.403
lm_head,3.152
total,45.431

Step,Duration (ns),Used
4,222442191,yes
5,219726905,yes
6,224936243,yes

Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
causal,222442191,1151,45.431,52.3,312.00,16.8
END
expect_stderr <<'END'
END

case_ '../shared ns_resolution_trace: a V100 has no BF16, so --dtype fp16; the first step is an outlier'
cd "$H/ns_resolution_trace" || exit 1
vp_tables "model flops steps mfu" mfu rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz --model "$WORK/llama-3-8b.json" --seq-len 128 --global-batch 1 --dtype fp16 --convention causal -f csv
expect_status 0
expect_stdout <<'END'
Parameters,Count
total,8030261248
total without input embedding,7504924672
input embedding,525336576
lm_head,525336576
attention,1342177280
MLP,5637144576
norms,266240
matmul weights per token (N),7504658432

Term,Causal GFLOP/token
dense matmuls,41.876
attention,0.101
lm_head,3.152
total,45.129

Step,Duration (ns),Used
101,35115869,"no (first step, outlier)"
102,72077474,yes
103,95697341,yes
104,95551087,yes
105,95699037,yes

Convention,Step Time (ns),Tokens/s/GPU,GFLOP/token,TFLOP/s/GPU,Peak TFLOP/s,MFU (%)
causal,95624214,1339,45.129,60.4,125.00,48.3
END
expect_stderr <<'END'
END

case_ '../shared ns_resolution_trace without --dtype fp16'
cd "$H/ns_resolution_trace" || exit 1
vp mfu rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz --model "$WORK/llama-3-8b.json" --seq-len 128 --global-batch 1 -f csv
expect_status 2
expect_stdout <<'END'
END
expect_stderr <<'END'
vprof: mfu: no dense bf16 peak known for the V100: give --peak-tflops N or --dtype fp16
Try 'vprof help mfu'.
END

cd "$WORK" || exit 1
else
    echo "SKIP [$T]: $H is absent: the ../shared cases were not run"
fi
