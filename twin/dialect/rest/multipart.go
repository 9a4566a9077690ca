package rest

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
)

// Limits of a multipart body read as parameters: the body itself is
// bounded by the server's request limit; these bound what one part may
// make of it.
const (
	maxParts    = 256
	maxPartSize = 1 << 20
)

// formOf reads a multipart/form-data body as the form body it stands
// for, so that canon reads its fields like any form's: a text part is
// its value, a file part its file name (an upload's content is not an
// entity's field; OpenAI's POST /v1/files answers the name). Any other
// body is returned as it is.
func formOf(contentType string, body []byte) (string, []byte, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		return contentType, body, nil
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	v := url.Values{}
	for n := 0; ; n++ {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, fmt.Errorf("the multipart body does not parse: %v", err)
		}
		if n == maxParts {
			return "", nil, fmt.Errorf("the multipart body has more than %d parts", maxParts)
		}
		name := part.FormName()
		if name == "" {
			continue
		}
		if fn := part.FileName(); fn != "" {
			v.Add(name, fn)
			continue
		}
		b, err := io.ReadAll(io.LimitReader(part, maxPartSize+1))
		if err != nil {
			return "", nil, fmt.Errorf("the multipart body does not parse: %v", err)
		}
		if len(b) > maxPartSize {
			return "", nil, fmt.Errorf("the multipart part %q is larger than %d bytes", name, maxPartSize)
		}
		v.Add(name, string(b))
	}
	return "application/x-www-form-urlencoded", []byte(v.Encode()), nil
}
