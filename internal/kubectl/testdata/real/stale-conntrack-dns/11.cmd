describe node node-b-3
