# syntax=docker/dockerfile:1
# Build: a static binary with the default library embedded.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.buildVersion=${VERSION}" -o /out/casebook ./cmd/server \
 && mkdir -p /out/data

# Run: no shell, no package manager, a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/casebook /casebook
COPY --from=build --chown=65532:65532 /out/data /data
ENV CASEBOOK_ADDR=0.0.0.0:8080 \
    CASEBOOK_DATA=/data \
    CASEBOOK_LOG_FORMAT=json
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/casebook"]
CMD ["serve"]
