describe node worker-a-2
