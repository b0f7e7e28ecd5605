package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

func newUsersCommand() *cobra.Command {
	users := &cobra.Command{Use: "users", Short: "Manage the users who sign in through OAuth"}
	var dsn, tenant, username string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a user; the password is read from stdin",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !ids.Valid(ids.Tenant, tenant) {
				return fmt.Errorf("--tenant %q is not a tenant id (ten_ followed by 26 characters)", tenant)
			}
			if username == "" {
				return errors.New("--username is required")
			}
			fmt.Fprint(cmd.ErrOrStderr(), "password: ")
			line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
			if err != nil && line == "" {
				return fmt.Errorf("read password: %w", err)
			}
			password := strings.TrimRight(line, "\r\n")
			if len(password) < 8 {
				return errors.New("the password must have at least 8 characters")
			}
			st, err := store.Open(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			u, err := st.CreateUser(cmd.Context(), tenant, username, password)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), u.ID)
			return nil
		},
	}
	create.Flags().StringVar(&dsn, "store-dsn", envOr("DISCO_STORE_DSN", "sqlite://.disco/disco.db"), "SQL store")
	create.Flags().StringVar(&tenant, "tenant", "", "tenant id (ten_...)")
	create.Flags().StringVar(&username, "username", "", "user name")
	users.AddCommand(create)
	return users
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
