describe pod glue-finetune-4xk2p -n nlp-train
