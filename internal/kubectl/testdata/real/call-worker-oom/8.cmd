describe pod call-worker-8d7f6c5b4-5lq9v -n voice
