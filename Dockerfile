# One small, non-root image with the static disco binary; every role (manager, apiserver,
# engine Jobs) runs it with a different subcommand.
# The dashboard's htmx, from the npm registry at package-lock.json's pinned version (as
# `make build` vendors it); Node is needed only here, never at run time.
FROM node:20-slim AS web
WORKDIR /src/dashboard/web
COPY dashboard/web/ ./
RUN ./vendor.sh

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=web /src/dashboard/static/vendor/ dashboard/static/vendor/
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/disco .

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/disco /disco
USER 65532:65532
ENTRYPOINT ["/disco"]
CMD ["manager"]
