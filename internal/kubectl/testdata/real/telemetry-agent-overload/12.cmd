describe node worker-a-1
