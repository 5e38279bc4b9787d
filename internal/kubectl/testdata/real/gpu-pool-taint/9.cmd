describe job glue-finetune -n nlp-train
