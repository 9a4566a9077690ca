# Wraith in a container: docs/docker.md.
#
#   docker build -t wraith .
#   docker run --rm -p 8080:8080 -e WRAITH_CONTROL_TOKEN=$(openssl rand -hex 16) wraith checkout
#
# Build stage: a static binary (no cgo, so no libc to match at run time).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=auto \
      -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/ ./cmd/wraith ./cmd/wraith-twin

# Run stage: nothing but the binaries, CA roots and a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/wraith /out/wraith-twin /usr/local/bin/
# Mount your own twins here; they resolve by name like the embedded ones.
ENV WRAITH_TWINS_PATH=/twins
WORKDIR /home/nonroot
USER 65532:65532
EXPOSE 8080
# Listening beyond loopback needs a control token: the container refuses to
# start until WRAITH_CONTROL_TOKEN is set (docs/docker.md).
ENTRYPOINT ["/usr/local/bin/wraith", "serve", "--host", "0.0.0.0", "--port", "8080", "--control-token-env", "WRAITH_CONTROL_TOKEN"]
CMD ["checkout"]
