describe pod llama-ft-worker-0 -n research
