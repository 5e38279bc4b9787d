describe pod detector-api-6f7d8c9b5-qk2lm -n vision
