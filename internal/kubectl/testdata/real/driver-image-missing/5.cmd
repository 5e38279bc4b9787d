get nodes -o wide
